/** The periods a partner picks from: their start as a date-time, by the browser's clock. */
export const PERIODS = [
  { value: '', label: 'any time' },
  { value: '1h', label: 'the last hour', ms: 3_600_000 },
  { value: '24h', label: 'the last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'the last 7 days', ms: 7 * 86_400_000 },
] as const;

/** `from=…` for a period's value, or nothing. */
export function periodQuery(value: string | null): Record<string, string> {
  const period = PERIODS.find((p) => p.value === value);
  return period && 'ms' in period ? { from: new Date(Date.now() - period.ms).toISOString() } : {};
}
