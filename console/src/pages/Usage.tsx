import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useParams } from 'wouter';
import { clientFor } from '../api.ts';

import { ErrorNote, Loading, PageTitle, when } from '../ui.tsx';

function DayChart({ days }: { days: { date: string; retrievals: number }[] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d.date.slice(0, 10)}T00:00:00Z`) / 1000);
    const ys = days.map((d) => d.retrievals);
    const width = () => Math.max(280, Math.min(900, el.clientWidth || 600));
    const chart = new uPlot(
      {
        width: width(),
        height: 260,
        scales: { x: { time: true } },
        series: [{}, { label: 'Retrievals', stroke: '#1f5fbf', fill: 'rgba(31,95,191,0.15)', width: 2 }],
        axes: [{}, { label: 'Retrievals' }],
      },
      [xs, ys],
      el,
    );
    const resize = () => chart.setSize({ width: width(), height: 260 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.destroy();
    };
  }, [days]);
  return <div ref={ref} className="chart" role="img" aria-label={`Retrievals per day: ${days.map((d) => `${d.date.slice(0, 10)} ${d.retrievals}`).join(', ')}`} />;
}

export default function UsagePage() {
  const { ws } = useParams<{ ws: string }>();
  const usage = useQuery({ queryKey: ['usage', ws], queryFn: () => clientFor(ws).usage.get() });
  return (
    <>
      <PageTitle text="Usage" />
      {usage.isPending && <Loading what="Loading usage" />}
      <ErrorNote error={usage.error} />
      {usage.data && (
        <>
          <p>
            <strong data-testid="usage-used">{usage.data.used.toLocaleString()}</strong> of {usage.data.limit.toLocaleString()} retrievals used in {usage.data.period} ({usage.data.remaining.toLocaleString()} left; resets {when(usage.data.resetsAt)}).
          </p>
          <label htmlFor="usage-meter">Share of the plan’s limit used</label>
          <meter id="usage-meter" min={0} max={usage.data.limit} value={usage.data.used} high={usage.data.limit * 0.8} optimum={0}>
            {usage.data.used} of {usage.data.limit}
          </meter>
          <h2>Per day</h2>
          {usage.data.days?.length ? <DayChart days={usage.data.days} /> : <p>The service does not report retrievals per day yet.</p>}
        </>
      )}
    </>
  );
}
