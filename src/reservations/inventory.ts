import { apiError } from '../platform/errors.js';
import { parseDate, parseTime } from '../platform/local-time.js';
import { catalogInterner } from '../platform/intern.js';
import { schemaValidator } from '../platform/validation.js';

/** Reservation slots start on a 15-minute grid (docs/contract/reservations.md §3.1). */
export const SLOT_MINUTES = 15;

export interface ServiceWindow {
  /** 0 = Monday … 6 = Sunday. */
  day: number;
  /** First seating, `HH:MM`. */
  start: string;
  /** Last seating, `HH:MM` (inclusive); a party seated then stays for its turn time. */
  last_seating: string;
}

export interface TableSpec {
  name: string;
  min_party: number;
  max_party: number;
}

export interface TurnTime {
  /** Applies to parties up to this size; null = any larger party. */
  max_party: number | null;
  minutes: number;
}

/** How a restaurant takes reservations: the operator's model behind every opening. */
export interface ReservationSettings {
  accepts_reservations: boolean;
  /** Online party range: feeds covers_range and COVERS_VALUE_OUT_OF_RANGE. */
  party_size: { min: number; max: number };
  max_future_days: number;
  min_notice_minutes: number;
  service_hours: ServiceWindow[];
  closed_dates: string[];
  tables: TableSpec[];
  turn_times: TurnTime[];
  credit_card: { min_party: number | null; dates: string[] };
  cancellation: { policy: string; cutoff_minutes: number };
  notes: string;
  is_editable: boolean;
}

const hhmm = { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' } as const;
const ymd = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } as const;

export const reservationSettingsSchema = {
  $id: 'ReservationSettings',
  type: 'object',
  additionalProperties: false,
  required: ['tables', 'service_hours'],
  properties: {
    accepts_reservations: { type: 'boolean', default: true },
    party_size: {
      type: 'object',
      additionalProperties: false,
      required: ['min', 'max'],
      properties: { min: { type: 'integer', minimum: 1, maximum: 10 }, max: { type: 'integer', minimum: 1, maximum: 10 } },
    },
    max_future_days: { type: 'integer', minimum: 0, maximum: 365 },
    min_notice_minutes: { type: 'integer', minimum: 0, maximum: 7 * 24 * 60 },
    service_hours: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['day', 'start', 'last_seating'],
        properties: { day: { type: 'integer', minimum: 0, maximum: 6 }, start: hhmm, last_seating: hhmm },
      },
    },
    closed_dates: { type: 'array', maxItems: 1000, items: ymd },
    tables: {
      type: 'array',
      minItems: 0,
      maxItems: 500,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'min_party', 'max_party'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 50 },
          min_party: { type: 'integer', minimum: 1, maximum: 100 },
          max_party: { type: 'integer', minimum: 1, maximum: 100 },
        },
      },
    },
    turn_times: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['max_party', 'minutes'],
        properties: { max_party: { type: ['integer', 'null'], minimum: 1 }, minutes: { type: 'integer', minimum: 15, maximum: 600 } },
      },
    },
    credit_card: {
      type: 'object',
      additionalProperties: false,
      properties: { min_party: { type: ['integer', 'null'], minimum: 1 }, dates: { type: 'array', maxItems: 1000, items: ymd } },
    },
    cancellation: {
      type: 'object',
      additionalProperties: false,
      properties: { policy: { type: 'string', maxLength: 2000 }, cutoff_minutes: { type: 'integer', minimum: 0, maximum: 30 * 24 * 60 } },
    },
    notes: { type: 'string', maxLength: 2000 },
    is_editable: { type: 'boolean' },
  },
} as const;

const validateSettings = schemaValidator(reservationSettingsSchema, 'settings');

export const DEFAULT_TURN_TIMES: TurnTime[] = [
  { max_party: 2, minutes: 90 },
  { max_party: 6, minutes: 120 },
  { max_party: null, minutes: 150 },
];

function invalid(field: string, message: string): never {
  throw apiError('VALIDATION_ERROR', `${field} ${message}`, { field });
}

/** Validates and completes the operator's reservation settings. */
export function normalizeSettings(input: unknown): ReservationSettings {
  const s = validateSettings(input);
  const party = s.party_size ?? { min: 1, max: 10 };
  if (party.min > party.max) invalid('party_size', 'min must not exceed max');
  for (const [i, w] of s.service_hours.entries()) {
    if (parseTime(w.start)! > parseTime(w.last_seating)!) invalid(`service_hours.${i}`, 'start must not be after last_seating');
    if (parseTime(w.start)! % SLOT_MINUTES !== 0 || parseTime(w.last_seating)! % SLOT_MINUTES !== 0) {
      invalid(`service_hours.${i}`, `times must fall on the ${SLOT_MINUTES}-minute grid`);
    }
  }
  const names = new Set<string>();
  for (const [i, t] of s.tables.entries()) {
    if (t.min_party > t.max_party) invalid(`tables.${i}`, 'min_party must not exceed max_party');
    if (names.has(t.name)) invalid(`tables.${i}.name`, `"${t.name}" appears twice`);
    names.add(t.name);
  }
  const dates = [...(s.closed_dates ?? []), ...(s.credit_card?.dates ?? [])];
  for (const d of dates) if (!parseDate(d)) invalid('dates', `${d} is not a calendar date`);
  const turns = [...(s.turn_times ?? DEFAULT_TURN_TIMES)].sort((a, b) => (a.max_party ?? Infinity) - (b.max_party ?? Infinity));
  if (turns[turns.length - 1].max_party !== null) invalid('turn_times', 'needs a last entry with max_party null (any larger party)');
  return {
    accepts_reservations: s.accepts_reservations ?? true,
    party_size: party,
    max_future_days: s.max_future_days ?? 90,
    min_notice_minutes: s.min_notice_minutes ?? 60,
    service_hours: s.service_hours,
    closed_dates: [...new Set(s.closed_dates ?? [])].sort(),
    tables: s.tables,
    turn_times: turns,
    credit_card: { min_party: s.credit_card?.min_party ?? null, dates: [...new Set(s.credit_card?.dates ?? [])].sort() },
    cancellation: { policy: s.cancellation?.policy ?? '', cutoff_minutes: s.cancellation?.cutoff_minutes ?? 0 },
    notes: s.notes ?? '',
    is_editable: s.is_editable ?? false,
  };
}

export function turnMinutes(settings: ReservationSettings, covers: number): number {
  return settings.turn_times.find((t) => t.max_party === null || covers <= t.max_party)!.minutes;
}

export function creditCardRequired(settings: ReservationSettings, date: string, covers: number): boolean {
  const { min_party, dates } = settings.credit_card;
  return (min_party !== null && covers >= min_party) || dates.includes(date);
}

/**
 * The same settings with their parts shared with every restaurant that has equal ones (hours,
 * tables, turn times, policies: catalogInterner), for the in-memory catalogue. Frozen.
 */
export function internSettings(s: ReservationSettings): ReservationSettings {
  const i = catalogInterner;
  return Object.freeze({
    accepts_reservations: s.accepts_reservations,
    party_size: i.value(s.party_size),
    max_future_days: s.max_future_days,
    min_notice_minutes: s.min_notice_minutes,
    service_hours: i.value(s.service_hours),
    closed_dates: i.value(s.closed_dates),
    tables: i.value(s.tables),
    turn_times: i.value(s.turn_times),
    credit_card: i.value(s.credit_card),
    cancellation: i.value(s.cancellation),
    notes: i.string(s.notes),
    is_editable: s.is_editable,
  });
}
