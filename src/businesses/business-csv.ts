import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { categoryTitle } from '../catalog/categories.js';
import { apiError } from '../platform/errors.js';
import { MAX_STREAMED_LINE_BYTES, type LineSource, type SourceRecord } from '../platform/json-lines.js';
import { isRecord } from '../platform/values.js';

/**
 * Businesses as CSV with a header row (docs/catalogue.md "Imports"): the list an operator most
 * often has, from a spreadsheet or another system's export. Each row becomes the object a JSON
 * line would be, and goes through the same checks. Read with csv-parse (quoted fields, commas and
 * line breaks inside quotes, a byte-order mark), as the body arrives.
 */

type Kind = 'text' | 'boolean' | 'integer' | 'number' | 'list' | 'categories' | 'json';

/** Each column the header may name: where its value goes in the business record, and how it is read. */
const COLUMNS: Record<string, { path: string[]; kind: Kind }> = {};
const column = (names: string[], path: string[], kind: Kind) => {
  for (const name of names) COLUMNS[name] = { path, kind };
};
for (const name of ['id', 'alias', 'name', 'image_url', 'url', 'price', 'phone', 'display_phone', 'timezone', 'specialties', 'migrated_to'])
  column([name], [name], 'text');
column(['is_closed'], ['is_closed'], 'boolean');
column(['is_claimed'], ['is_claimed'], 'boolean');
column(['review_count'], ['review_count'], 'integer');
column(['rating'], ['rating'], 'number');
for (const name of ['address1', 'address2', 'address3', 'city', 'zip_code', 'country', 'state', 'cross_streets'])
  column([name, `location.${name}`], ['location', name], 'text');
column(['postal_code', 'location.postal_code'], ['location', 'zip_code'], 'text');
column(['display_address', 'location.display_address'], ['location', 'display_address'], 'list');
for (const name of ['latitude', 'longitude']) column([name, `coordinates.${name}`], ['coordinates', name], 'number');
column(['categories'], ['categories'], 'categories');
column(['transactions'], ['transactions'], 'list');
column(['attributes'], ['attributes'], 'json');
column(['hours'], ['hours'], 'json');

/** The column names a header may use, for the message that refuses another. */
export const BUSINESS_CSV_COLUMNS = Object.keys(COLUMNS);

/** A list cell: a JSON array, or items separated by `;` or `|` (a comma list is taken when neither appears). */
function listOf(cell: string): unknown {
  if (cell.startsWith('[')) return jsonOf(cell);
  const separator = /[;|]/.test(cell) ? /[;|]/ : /,/;
  return cell
    .split(separator)
    .map((item) => item.trim())
    .filter(Boolean);
}

/** JSON text as its value; text that is not JSON is passed on as text, for the schema to refuse by name. */
function jsonOf(cell: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    return cell;
  }
}

/** `italian; pizza:Pizza Places` → `[{alias: 'italian', title: 'Italian'}, {alias: 'pizza', title: 'Pizza Places'}]`. */
function categoriesOf(cell: string): unknown {
  const items = listOf(cell);
  if (!Array.isArray(items)) return items;
  return items.map((item) => {
    if (typeof item !== 'string') return item;
    const at = item.indexOf(':');
    const alias = (at < 0 ? item : item.slice(0, at)).trim();
    const title = at < 0 ? (categoryTitle(alias) ?? alias) : item.slice(at + 1).trim();
    return { alias, title };
  });
}

/** A cell as its field's value; a value that does not read as its kind is passed on as text, for the schema to refuse by name. */
function valueOf(cell: string, kind: Kind): unknown {
  switch (kind) {
    case 'text':
      return cell;
    case 'boolean': {
      const lower = cell.toLowerCase();
      if (['true', 'yes', '1'].includes(lower)) return true;
      if (['false', 'no', '0'].includes(lower)) return false;
      return cell;
    }
    case 'integer':
    case 'number': {
      const n = Number(cell);
      return cell !== '' && Number.isFinite(n) ? n : cell;
    }
    case 'list':
      return listOf(cell);
    case 'categories':
      return categoriesOf(cell);
    case 'json':
      return jsonOf(cell);
  }
}

/** The header row checked: every column known, none twice. */
function headerOf(cells: string[]): Array<{ path: string[]; kind: Kind }> {
  const seen = new Set<string>();
  return cells.map((raw) => {
    const name = raw.trim();
    const known = COLUMNS[name];
    if (!known)
      throw apiError(
        'VALIDATION_ERROR',
        `line 1: unknown column "${name}"; a business CSV's columns are ${BUSINESS_CSV_COLUMNS.join(', ')}`,
        { field: name },
      );
    const target = known.path.join('.');
    if (seen.has(target)) throw apiError('VALIDATION_ERROR', `line 1: column "${name}" gives ${target} a second time`, { field: name });
    seen.add(target);
    return known;
  });
}

/** One row as the business object a JSON line would hold; empty cells are left out. */
function recordOf(header: Array<{ path: string[]; kind: Kind }>, cells: string[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  header.forEach(({ path, kind }, i) => {
    const cell = (cells[i] ?? '').trim();
    if (cell === '') return;
    let into = record;
    for (const key of path.slice(0, -1)) {
      const inner = into[key];
      if (isRecord(inner)) into = inner;
      else into = into[key] = {};
    }
    into[path[path.length - 1]] = valueOf(cell, kind);
  });
  return record;
}

/** csv-parse's own error as the catalogue's 400, naming the line. */
function csvProblem(error: CsvError): Error {
  const line = /line (\d+)/.exec(error.message)?.[1];
  const why =
    error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH'
      ? 'has a different number of cells than the header'
      : error.code === 'CSV_MAX_RECORD_SIZE'
        ? `is longer than ${MAX_STREAMED_LINE_BYTES} bytes`
        : `is not CSV (${error.message.replace(/^Invalid [^:]*:\s*/, '')})`;
  return apiError(
    error.code === 'CSV_MAX_RECORD_SIZE' ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR',
    `${line ? `line ${line}` : 'the CSV'} ${why}`,
  );
}

/**
 * The businesses of a CSV body as it arrives, `batchSize` at a time, each with the line its row
 * ends on (a quoted cell may span lines): the batches `importBusinesses` takes from JSON lines
 * too. At most `maxLines` rows.
 */
export async function* businessCsvBatches(
  source: LineSource,
  options: { maxLines: number; batchSize: number },
): AsyncGenerator<SourceRecord[]> {
  const parser = parse({ bom: true, info: true, skip_empty_lines: true, max_record_size: MAX_STREAMED_LINE_BYTES });
  const input = typeof source === 'string' ? Readable.from([source]) : Readable.from(source);
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  let header: Array<{ path: string[]; kind: Kind }> | undefined;
  let batch: SourceRecord[] = [];
  let rows = 0;
  try {
    for await (const row of parser) {
      // With `info: true` each row is {record: the cells, info: {lines, …}}.
      const parsed: unknown = row;
      if (!isRecord(parsed) || !Array.isArray(parsed.record) || !isRecord(parsed.info)) continue;
      const record = parsed.record.map(String);
      const info = { lines: Number(parsed.info.lines) };
      if (header === undefined) {
        header = headerOf(record);
        continue;
      }
      if (++rows > options.maxLines) throw apiError('PAYLOAD_TOO_LARGE', `At most ${options.maxLines} rows per import.`);
      batch.push({ value: recordOf(header, record), where: `line ${info.lines}` });
      if (batch.length >= options.batchSize) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    throw error instanceof CsvError ? csvProblem(error) : error;
  } finally {
    input.unpipe(parser);
    input.destroy();
    parser.destroy();
  }
  if (batch.length > 0) yield batch;
}
