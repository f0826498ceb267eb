/** The periods a partner picks from: their start as a date-time, by the browser's clock. */
export const PERIODS = [
  { value: '', label: 'any time' },
  { value: '1h', label: 'the last hour', ms: 3_600_000 },
  { value: '24h', label: 'the last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'the last 7 days', ms: 7 * 86_400_000 },
] as const;

/**
 * `from=…` for a period's value, or nothing. Whole minutes: the page asks again with the same
 * address on every render within a minute, not a new one each time.
 */
export function periodQuery(value: string | null): Record<string, string> {
  const period = PERIODS.find((p) => p.value === value);
  if (!period || !('ms' in period)) return {};
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  return { from: new Date(minute - period.ms).toISOString() };
}
