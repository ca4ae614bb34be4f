import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useParams } from 'wouter';
import { clientFor } from '../api.ts';
import { ErrorNote, Loading, PageTitle, when } from '../ui.tsx';
import '../styles/agents.css';

type Day = { date: string; retrievals: number };

const daySeconds = 86_400;
const secondsOf = (date: string) => Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / 1000;
/** A calendar day of the service (UTC) as the reader says it: "3 May". */
const dayName = (seconds: number) => new Date(seconds * 1000).toLocaleDateString(undefined, { timeZone: 'UTC', day: 'numeric', month: 'short' });
const retrievals = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'retrieval' : 'retrievals'}`;

/** The chart in one sentence: its text alternative, and its caption. */
function summaryOf(days: Day[]): string {
  const first = dayName(secondsOf(days[0].date));
  const last = dayName(secondsOf(days[days.length - 1].date));
  const span = days.length === 1 ? `on ${first}` : `from ${first} to ${last}`;
  const total = days.reduce((sum, d) => sum + d.retrievals, 0);
  if (total === 0) return `No retrievals ${span}.`;
  const busiest = days.reduce((top, d) => (d.retrievals > top.retrievals ? d : top));
  return `${retrievals(total)} ${span}; the busiest day was ${dayName(secondsOf(busiest.date))}, with ${retrievals(busiest.retrievals)}.`;
}

/**
 * Retrievals per day, labelled: axes named, no legend of dashes, a caption that reads the day under the pointer,
 * and the same numbers as a table for those who do not see or point at the chart.
 */
function DayChart({ days }: { days: Day[] }) {
  const ref = useRef<HTMLDivElement>(null);
  const [hovered, setHovered] = useState<number | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const xs = days.map((d) => secondsOf(d.date));
    const ys = days.map((d) => d.retrievals);
    const width = () => Math.max(260, Math.min(900, el.clientWidth || 600));
    const chart = new uPlot(
      {
        width: width(),
        height: 260,
        // The service counts by UTC day, so the axis does too.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: {
          x: { time: true, range: (_u, min, max) => [min - daySeconds / 2, max + daySeconds / 2] },
          y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
        },
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        series: [{}, { label: 'Retrievals', stroke: '#1f5fbf', fill: 'rgba(31,95,191,0.15)', width: 2, points: { show: true, size: 6 } }],
        axes: [
          { label: 'Day (UTC)', incrs: [1, 2, 7, 14].map((n) => n * daySeconds), values: (_u, splits) => splits.map(dayName), stroke: '#1a1a1a' },
          { label: 'Retrievals', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6], stroke: '#1a1a1a' },
        ],
        hooks: { setCursor: [(u) => setHovered(u.cursor.idx ?? null)] },
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
  const day = hovered === null ? undefined : days[hovered];
  return (
    <>
      <figure className="usage-chart">
        <figcaption id="usage-chart-caption">
          <strong>Retrievals per day (UTC).</strong> {summaryOf(days)}
        </figcaption>
        <div ref={ref} className="chart" role="img" aria-labelledby="usage-chart-caption" data-testid="usage-chart" />
        <p className="chart-readout" data-testid="chart-readout">
          {day ? <><strong>{dayName(secondsOf(day.date))}</strong>: {retrievals(day.retrievals)}</> : 'Point at the chart to read one day’s retrievals.'}
        </p>
      </figure>
      <details className="usage-days">
        <summary>Every day as a table</summary>
        <table className="list" aria-label="Retrievals per day">
          <thead>
            <tr><th scope="col">Day (UTC)</th><th scope="col">Retrievals</th></tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}><th scope="row">{dayName(secondsOf(d.date))}</th><td>{d.retrievals.toLocaleString()}</td></tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
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
