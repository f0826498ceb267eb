import type { Business, BusinessHours } from '../businesses/business-record.js';
import { isOpenDuring, weeklyIntervals } from '../businesses/hours.js';
import { apiError } from '../platform/errors.js';
import { schemaValidator } from '../platform/validation.js';
import { BUCKETS, type Bucket } from './waitlist-tables.js';
import { recordOf } from '../platform/values.js';

/**
 * The waitlist's rules that need no database: a restaurant's configuration and its defaults, the
 * state a waitlist is in, and the wait estimates computed from the live queue and the seating
 * pace. The service applies them to stored restaurants and visits.
 */

/** How a restaurant seats its line: this many parties of each size every interval. */
export interface SeatingPace {
  interval_minutes: number;
  parties_per_interval: Record<Bucket, number>;
}

export interface WaitlistConfig {
  /** Waitlist hours (the business's format); null: its opening hours. */
  hours: BusinessHours[] | null;
  join_radius: number;
  join_radius_unit: 'MILES' | 'KILOMETERS';
  max_party_size: number;
  /** Seating areas a party may prefer: key → label (docs/contract/waitlist.md §4.3). */
  seating_areas: Record<string, string>;
  /** Whether parties may join from afar at all (off: CLOSED, remote_entry_disabled). */
  remote_entry: boolean;
  /** Whether the restaurant takes on-my-way visits when there is no wait (off: CLOSED, no_current_wait). */
  on_my_way: boolean;
  pace: SeatingPace;
  /** Whether the pbs clock advances the line at the pace (off: the restaurant notifies and seats by hand). */
  auto_advance: boolean;
}

export const DEFAULT_CONFIG: WaitlistConfig = {
  hours: null,
  join_radius: 5,
  join_radius_unit: 'MILES',
  max_party_size: 8,
  seating_areas: {},
  remote_entry: true,
  on_my_way: true,
  pace: { interval_minutes: 15, parties_per_interval: { '1-2': 2, '3-4': 2, '5-6': 1, '7+': 1 } },
  auto_advance: true,
};

/** The largest party a line takes: the operator's max_party_size and every party size are at most this. */
export const MAX_PARTY_SIZE = 100;
/** At most this many on-my-way visits are active per restaurant (docs/contract/waitlist.md §4.2: the 10th → 409 CONFLICT). */
export const MAX_ACTIVE_ON_MY_WAY = 9;
/** An on-my-way visit that has not arrived this long after its arrive-by time expires. */
export const ON_MY_WAY_GRACE_MS = 15 * 60_000;
/** Visits are answered for 30 days after their last change, then forgotten. */
export const VISIT_RETENTION_MS = 30 * 86_400_000;
/** Closing reasons the restaurant side may give (the others follow from hours, settings and the line). */
export const MANUAL_CLOSED_REASONS = ['waitlist_closed', 'special_event'] as const;

/** What the pace needs of a reservation inventory: its tables and turn times. */
export interface TableInventory {
  tables: Array<{ min_party: number; max_party: number }>;
  turn_times: Array<{ max_party: number | null; minutes: number }>;
}

/** The party size each bucket's pace is judged by (its largest; 7 for the open-ended bucket). */
const BUCKET_SIZE: Record<Bucket, number> = { '1-2': 2, '3-4': 4, '5-6': 6, '7+': 7 };

/**
 * A pace from the reservation inventory: per bucket, the tables that seat its party size, each
 * freed once per turn time, over the interval — `tables × interval ÷ turn`, rounded, so a bucket no
 * table seats is seated by hand (0). A table that fits several buckets counts in each: the pace
 * is what each bucket could get, as if it had the room to itself.
 */
export function paceFromInventory(inventory: TableInventory, intervalMinutes: number): Record<Bucket, number> {
  return recordOf(BUCKETS, (bucket) => {
    const size = BUCKET_SIZE[bucket];
    const tables = inventory.tables.filter((t) => t.min_party <= size && size <= t.max_party).length;
    const turn = inventory.turn_times.find((t) => t.max_party === null || size <= t.max_party)?.minutes ?? 90;
    return Math.round((tables * intervalMinutes) / turn);
  });
}

export function bucketOf(partySize: number): Bucket {
  return partySize <= 2 ? '1-2' : partySize <= 4 ? '3-4' : partySize <= 6 ? '5-6' : '7+';
}

const invalidConfig = (field: string, message: string): never => {
  throw apiError('VALIDATION_ERROR', message, { field });
};

/** The operator's configuration, merged over the current one (or the defaults) and checked. */
export function mergeConfig(current: WaitlistConfig, body: Record<string, unknown>): WaitlistConfig {
  const input = validateConfig(body);
  const next: WaitlistConfig = { ...current, pace: { ...current.pace, parties_per_interval: { ...current.pace.parties_per_interval } } };
  if (input.hours !== undefined)
    next.hours =
      input.hours === null
        ? null
        : input.hours.map((h) => ({ hours_type: 'REGULAR', open: h.open.map((o) => ({ ...o, is_overnight: o.is_overnight ?? false })) }));
  if (input.join_radius !== undefined) next.join_radius = input.join_radius;
  if (input.join_radius_unit !== undefined) next.join_radius_unit = input.join_radius_unit;
  if (input.max_party_size !== undefined) next.max_party_size = input.max_party_size;
  if (input.seating_areas !== undefined) next.seating_areas = input.seating_areas;
  for (const flag of ['remote_entry', 'on_my_way', 'auto_advance'] as const) next[flag] = input[flag] ?? next[flag];
  if (input.pace?.interval_minutes !== undefined) next.pace.interval_minutes = input.pace.interval_minutes;
  if (input.pace?.parties_per_interval !== undefined) Object.assign(next.pace.parties_per_interval, input.pace.parties_per_interval);
  if (!BUCKETS.some((b) => next.pace.parties_per_interval[b] > 0))
    invalidConfig('pace', 'The pace must seat at least one party per interval.');
  return next;
}

/** JSON schema of the operator's configuration (the route validates with it; mergeConfig checks the rest). */
/** Parties of one bucket seated per interval (the buckets are BUCKETS, written out for the schema's type). */
const partiesPerInterval = { type: 'integer', minimum: 0, maximum: 100 } as const;

export const waitlistConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    hours: {
      type: ['array', 'null'],
      maxItems: 1,
      items: {
        type: 'object',
        required: ['open'],
        properties: {
          hours_type: { type: 'string', enum: ['REGULAR'] },
          open: {
            type: 'array',
            maxItems: 28,
            items: {
              type: 'object',
              required: ['day', 'start', 'end'],
              additionalProperties: false,
              properties: {
                day: { type: 'integer', minimum: 0, maximum: 6 },
                start: { type: 'string', pattern: '^([01][0-9]|2[0-3])[0-5][0-9]$' },
                end: { type: 'string', pattern: '^([01][0-9]|2[0-3])[0-5][0-9]$' },
                is_overnight: { type: 'boolean', default: false },
              },
            },
          },
        },
      },
    },
    join_radius: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
    join_radius_unit: { type: 'string', enum: ['MILES', 'KILOMETERS'] },
    max_party_size: { type: 'integer', minimum: 1, maximum: MAX_PARTY_SIZE },
    seating_areas: {
      type: 'object',
      maxProperties: 20,
      propertyNames: { pattern: '^[a-z0-9_]{1,40}$' },
      additionalProperties: { type: 'string', minLength: 1, maxLength: 80 },
    },
    remote_entry: { type: 'boolean' },
    on_my_way: { type: 'boolean' },
    auto_advance: { type: 'boolean' },
    pace: {
      type: 'object',
      additionalProperties: false,
      properties: {
        interval_minutes: { type: 'integer', minimum: 1, maximum: 240 },
        from_reservations: {
          type: 'boolean',
          description: "true: parties_per_interval from the restaurant's reservation tables and turn times",
        },
        parties_per_interval: {
          type: 'object',
          additionalProperties: false,
          properties: { '1-2': partiesPerInterval, '3-4': partiesPerInterval, '5-6': partiesPerInterval, '7+': partiesPerInterval },
        },
      },
    },
  },
} as const;

// Checked here too, for configurations that do not arrive as a route body (the CLI's files).
const validateConfig = schemaValidator(waitlistConfigSchema, 'waitlist');

export type WaitlistState = { state: 'OPEN' | 'ON_MY_WAY' } | { state: 'CLOSED'; closed_reason: string };

/** The hours a waitlist keeps, as weekly intervals: its own, else the restaurant's. */
export function waitlistHours(business: Business, config: WaitlistConfig): Int32Array {
  return weeklyIntervals(config.hours ?? business.hours);
}

/**
 * The state of a waitlist (docs/contract/waitlist.md §4.3): CLOSED with a reason when the restaurant side closed it,
 * outside its hours, or without remote entry; else OPEN when parties are waiting; else ON_MY_WAY
 * when it takes on-my-way visits, or CLOSED `no_current_wait`. `hours` may be given worked out
 * already (`waitlistHours`, kept with a snapshot).
 */
export function waitlistState(
  business: Business,
  config: WaitlistConfig,
  manual: { state: 'OPEN' | 'CLOSED'; reason: string | null },
  waiting: number,
  now: number,
  hours: Int32Array = waitlistHours(business, config),
): WaitlistState {
  if (manual.state === 'CLOSED') return { state: 'CLOSED', closed_reason: manual.reason ?? 'waitlist_closed' };
  if (!isOpenDuring(hours, business.timezone, now)) return { state: 'CLOSED', closed_reason: 'resto_closed' };
  if (!config.remote_entry) return { state: 'CLOSED', closed_reason: 'remote_entry_disabled' };
  if (waiting > 0) return { state: 'OPEN' };
  return config.on_my_way ? { state: 'ON_MY_WAY' } : { state: 'CLOSED', closed_reason: 'no_current_wait' };
}

export interface Estimate {
  est_wait: number;
  min_wait: number;
  max_wait?: number;
  wait_range: string;
}

/**
 * The wait of a party that would join behind `ahead` waiting parties of its bucket: the line
 * seats `parties_per_interval` of the bucket each interval, so it is told at the end of interval
 * ⌊ahead / rate⌋ + 1 (no wait at all when nobody waits). The range is ± a third of an interval,
 * in whole 5 minutes; the open-ended bucket (7+) has no maximum (docs/contract/waitlist.md §4.3).
 */
export function estimate(pace: SeatingPace, bucket: Bucket, ahead: number, anyoneWaiting: boolean): Estimate {
  const rate = pace.parties_per_interval[bucket];
  const interval = pace.interval_minutes;
  // A bucket the pace never seats waits for the restaurant by hand: a whole interval per party.
  const est = !anyoneWaiting ? 0 : rate > 0 ? (Math.floor(ahead / rate) + 1) * interval : (ahead + 1) * interval;
  const spread = Math.max(5, Math.round(interval / 3 / 5) * 5);
  const min = Math.max(0, est - spread);
  if (bucket === '7+') return { est_wait: est, min_wait: min, wait_range: `${min}+` };
  const max = est + spread;
  return { est_wait: est, min_wait: min, max_wait: max, wait_range: `${min}-${max}` };
}
