import { ByteWriter } from '../platform/byte-writer.js';
import type { RecordParts } from './records.js';

/** One business of a search page: its kept record parts and the values this request adds. */
export interface AnswerEntry {
  parts: RecordParts;
  /** Metres from the search centre. */
  distance: number;
  /** Whether it is open at the moment of the search (`business_hours[].is_open_now`). */
  openNow: boolean;
  /** The start minutes of its reservation openings; undefined when the search asked for none. */
  openings: readonly number[] | undefined;
}

const ascii = (text: string) => Buffer.from(text, 'latin1');
const START = ascii('{"businesses":[');
const OPENINGS_START = ascii(',"data":{"reservation_openings":[');
const OPENINGS_END = ascii(']}}');
const TOTAL = ascii('],"total":');
const LATITUDE = ascii(',"region":{"center":{"latitude":');
const LONGITUDE = ascii(',"longitude":');
const END = ascii('}}}');
const COMMA = 44;
const QUOTE = 34;
const COLON = 58;
const BRACE = 125;
const DOT = 46;
const ZERO = 48;
/** Room for one integer of up to 2^53 or one of our one-decimal distances. */
const NUMBER_ROOM = 24;
/** `"HH:MM",` */
const OPENING_ROOM = 8;

/**
 * The search answer's bytes, written once into one buffer sized for them: the records' kept
 * parts copied, and the few values of this request (distance, openings, total, centre) written
 * as digits in place. Assembled as strings and pieces instead, a page of twenty cost ~30 µs more
 * on this path than everything else search does together (docs/search.md "How search is built").
 */
export function searchAnswer(entries: readonly AnswerEntry[], total: number, center: { latitude: number; longitude: number }): Buffer {
  const latitude = String(center.latitude);
  const longitude = String(center.longitude);
  let room = START.length + TOTAL.length + NUMBER_ROOM + LATITUDE.length + latitude.length + LONGITUDE.length + longitude.length;
  room += END.length;
  for (const e of entries) {
    room += 1 + e.parts.head.length + NUMBER_ROOM + Math.max(e.parts.hoursOpen.length, e.parts.hoursClosed.length);
    room += e.openings ? OPENINGS_START.length + OPENING_ROOM * e.openings.length + OPENINGS_END.length : 1;
  }
  const out = answers.reserve(room);
  let at = copy(out, 0, START);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (i > 0) out[at++] = COMMA;
    at = copy(out, at, e.parts.head);
    at = writeTenths(out, at, e.distance);
    at = copy(out, at, e.openNow ? e.parts.hoursOpen : e.parts.hoursClosed);
    if (e.openings) {
      at = copy(out, at, OPENINGS_START);
      for (let j = 0; j < e.openings.length; j++) {
        if (j > 0) out[at++] = COMMA;
        at = writeHHMM(out, at, e.openings[j]);
      }
      at = copy(out, at, OPENINGS_END);
    } else out[at++] = BRACE;
  }
  at = copy(out, at, TOTAL);
  at = writeInteger(out, at, total);
  at = copy(out, at, LATITUDE);
  at += out.write(latitude, at, 'latin1');
  at = copy(out, at, LONGITUDE);
  at += out.write(longitude, at, 'latin1');
  at = copy(out, at, END);
  return answers.finish(at);
}

/**
 * Answers are cut from shared slabs of 256 kB, eight or so a slab, not given a 31 kB block each,
 * made and later swept for each request (reservation search at 10,000: 54.5 against 58.1 µs of
 * CPU a request). Larger than openings' 8 kB slabs, which hold a few answers each.
 */
const answers = new ByteWriter(256 * 1024);

function copy(out: Buffer, at: number, bytes: Uint8Array): number {
  out.set(bytes, at);
  return at + bytes.length;
}

/** A non-negative integer below 2^53, in decimal. */
export function writeInteger(out: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = ZERO + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}

/**
 * A distance rounded to a tenth, as `String(Math.round(value * 10) / 10)` writes it: `571.3`,
 * `12` (no `.0`). A tenth's double prints as its one-decimal form, so the digits are the same.
 */
export function writeTenths(out: Buffer, at: number, value: number): number {
  const tenths = Math.round(value * 10);
  const whole = Math.floor(tenths / 10);
  const tenth = tenths - whole * 10;
  at = writeInteger(out, at, whole);
  if (tenth === 0) return at;
  out[at] = DOT;
  out[at + 1] = ZERO + tenth;
  return at + 2;
}

/** A minute of the day as `"HH:MM"`, quoted. */
function writeHHMM(out: Buffer, at: number, minutes: number): number {
  const hours = Math.floor(minutes / 60);
  const minute = minutes - hours * 60;
  out[at] = QUOTE;
  out[at + 1] = ZERO + Math.floor(hours / 10);
  out[at + 2] = ZERO + (hours % 10);
  out[at + 3] = COLON;
  out[at + 4] = ZERO + Math.floor(minute / 10);
  out[at + 5] = ZERO + (minute % 10);
  out[at + 6] = QUOTE;
  return at + 7;
}
