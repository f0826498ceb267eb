import { apiError } from '../platform/errors.js';
import { mondayOf, parseDate } from '../platform/local-time.js';
import { recordOf } from '../platform/values.js';
import type { ActivityRow } from './engagement-store.js';
import { ACTIVITY_FIELDS } from './scoring.js';

/** Largest count a field takes (a business's actions in a week). */
const MAX_COUNT = 1e12;
const KNOWN_FIELDS = new Set<string>(['business_id', 'week', 'start_of_week_date', ...ACTIVITY_FIELDS]);

/**
 * One line of an activity load (docs/engagement.md): `{"business_id" (id or alias), "week" (any
 * day of it; its Monday counts), "page_views", …}`, checked field by field (VALIDATION_ERROR
 * naming the line and the field). The row's `business_id` is filled in once the business is
 * resolved.
 */
export function activityLine(value: Record<string, unknown>, where: string, now: number): { business: string; row: ActivityRow } {
  const business = value.business_id;
  if (typeof business !== 'string' || business === '' || business.length > 200)
    throw apiError('VALIDATION_ERROR', `${where}: business_id is required`, { field: 'business_id' });
  for (const key of Object.keys(value))
    if (!KNOWN_FIELDS.has(key))
      throw apiError('VALIDATION_ERROR', `${where}: unknown field ${key.slice(0, 40)}`, { field: key.slice(0, 40) });
  const week = value.week ?? value.start_of_week_date;
  if (typeof week !== 'string' || !parseDate(week))
    throw apiError('VALIDATION_ERROR', `${where}: week must be a date, YYYY-MM-DD`, { field: 'week' });
  const counts = recordOf(ACTIVITY_FIELDS, (field) => {
    const n = value[field] ?? 0;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > MAX_COUNT)
      throw apiError('VALIDATION_ERROR', `${where}: ${field} must be a whole number from 0 to 10^12`, { field });
    return n;
  });
  return { business, row: { week_start: mondayOf(week), business_id: '', updated_at: now, ...counts } };
}
