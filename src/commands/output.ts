/**
 * How a command's answer is printed: JSON for scripts (`--json`, or whenever stdout is not a
 * terminal, so pipes and files get what they always got), aligned tables for people on a
 * terminal. Colour only on a terminal, never with NO_COLOR (https://no-color.org).
 */
export interface OutputStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** Whether `stream` may be coloured: a terminal, and NO_COLOR unset or empty. */
export function colourFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

export function bold(text: string, colour: boolean): string {
  return colour ? `\u001b[1m${text}\u001b[22m` : text;
}

export function red(text: string, colour: boolean): string {
  return colour ? `\u001b[31m${text}\u001b[39m` : text;
}

/** Prints `value` (nothing when the command has no answer: `logs tail` printed as it went). */
export function printAnswer(value: unknown, options: { json: boolean; stream?: OutputStream; env?: NodeJS.ProcessEnv }): void {
  const stream = options.stream ?? process.stdout;
  if (value === undefined) return;
  if (options.json || !stream.isTTY) {
    stream.write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  stream.write(`${forPeople(value, colourFor(stream, options.env), stream.columns || 120)}\n`);
}

type Row = Record<string, unknown>;

const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An answer as people read it: a list of records as a table; a record as `field  value` lines,
 * with its one list of records (a page's `partners`, `entries`…) as a table below them.
 */
export function forPeople(value: unknown, colour: boolean, width = 120): string {
  if (Array.isArray(value)) return value.length > 0 && value.every(isRow) ? table(value, colour, width) : cell(value, width);
  if (!isRow(value)) return cell(value, width);
  const lists = Object.entries(value).flatMap(([k, v]) => (Array.isArray(v) && v.length > 0 && v.every(isRow) ? [{ k, rows: v }] : []));
  const listed = lists.length === 1 ? lists[0] : undefined;
  const fields = Object.entries(value).filter(([k]) => k !== listed?.k);
  const nameWidth = Math.max(0, ...fields.map(([k]) => k.length));
  const lines = fields.map(([k, v]) => `${bold(k.padEnd(nameWidth), colour)}  ${cell(v, Math.max(20, width - nameWidth - 2))}`);
  if (listed) {
    if (lines.length > 0) lines.push('');
    lines.push(table(listed.rows, colour, width));
  }
  return lines.join('\n');
}

/** Rows as aligned columns: every field of the first rows, nested values as compact JSON, long cells cut. */
function table(rows: Row[], colour: boolean, width: number): string {
  const columns = [...new Set(rows.slice(0, 50).flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => columns.map((c) => cell(r[c], 40)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  // Columns that do not fit the terminal are left out, and said to be (--json has them all).
  let used = -2;
  let shown = 0;
  while (shown < columns.length && used + 2 + widths[shown] <= width) used += 2 + widths[shown++];
  shown = Math.max(1, shown);
  const line = (row: string[]) =>
    row
      .slice(0, shown)
      .map((text, i) => text.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const out = [bold(line(columns), colour), ...cells.map(line)];
  if (shown < columns.length)
    out.push(
      `(${columns.length - shown} more column${columns.length - shown === 1 ? '' : 's'}: ${columns.slice(shown).join(', ')}; --json shows all)`,
    );
  return out.join('\n');
}

function cell(value: unknown, max: number): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
