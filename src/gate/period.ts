/** The calendar the quota counts by: months and days in UTC. */

const dayMs = 86_400_000;

/**
 * The UTC day a moment falls in, with its day and month as text. Every request asks, and all of a day's requests
 * get the same answer, so the last day's is kept rather than formatted again (JavaScript time has no leap seconds:
 * every UTC day is dayMs long).
 */
let kept = { from: 0, to: 0, day: '', period: '' };
function calendarDay(at: Date) {
  const t = at.getTime();
  if (t < kept.from || t >= kept.to) {
    const from = Math.floor(t / dayMs) * dayMs;
    const iso = new Date(from).toISOString();
    kept = { from, to: from + dayMs, day: iso.slice(0, 10), period: iso.slice(0, 7) };
  }
  return kept;
}

/** The calendar month (UTC) a moment falls in, as `YYYY-MM`. */
export const periodOf = (at: Date): string => calendarDay(at).period;

/** The calendar day (UTC) a moment falls in, as `YYYY-MM-DD`. */
export const dayOf = (at: Date): string => calendarDay(at).day;

/** The first instant of the next calendar month (UTC): when the quota resets. */
export function nextPeriodStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
