import { StringDecoder } from 'node:string_decoder';
import { apiError } from './errors.js';
import { jsonShapeProblem } from './json-shape.js';
import { isRecord } from './values.js';

/**
 * The objects of a JSON-lines import, one per non-blank line, each with where it stands
 * ("line 3") for the caller's messages. A line that is not a JSON object is 400
 * VALIDATION_ERROR; more than `maxLines` lines is 413 PAYLOAD_TOO_LARGE (send more in batches).
 */
export function* jsonLines(text: string, maxLines: number): Generator<{ value: Record<string, unknown>; where: string }> {
  const lines = text.split(/\r?\n/);
  let count = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    if (++count > maxLines)
      throw apiError('PAYLOAD_TOO_LARGE', `At most ${maxLines} lines per import; send more in batches (or use the CLI).`);
    yield parseLine(line, `line ${i + 1}`);
  }
}

/** One line's JSON object, or 400 VALIDATION_ERROR saying where. */
function parseLine(line: string, where: string): { value: Record<string, unknown>; where: string } {
  let value: unknown;
  const problem = jsonShapeProblem(line);
  if (problem) throw apiError('VALIDATION_ERROR', `${where}: ${problem}`, { field: where });
  try {
    value = JSON.parse(line);
  } catch {
    throw apiError('VALIDATION_ERROR', `${where}: not valid JSON`, { field: where });
  }
  if (!isRecord(value)) throw apiError('VALIDATION_ERROR', `${where}: not an object`, { field: where });
  return { value, where };
}

/** Largest body a streamed import takes (a million businesses with their hours are about 1.5 GB). */
export const MAX_IMPORT_BYTES = 2 * 1024 ** 3;

/**
 * Staged lines of an import that never finished (its process died) are removed by a later import
 * after this long. Wall time, not the pbs clock: it is about processes, and a sandbox clock moved
 * ahead must not make an import under way lose its staged lines.
 */
export const STALE_STAGING_MS = 24 * 3600_000;

/** Records between two progress reports of an import written in one transaction (the CLI's bar moves). */
export const IMPORT_PROGRESS_EVERY = 500;

/** Longest line a streamed import takes (a business record with its hours is a few kB). */
export const MAX_STREAMED_LINE_BYTES = 1024 * 1024;

/** One record of an import as read, with where it was in the body (`line 3`) for messages. */
export interface SourceRecord {
  value: Record<string, unknown>;
  where: string;
}

/** What a streamed import reads: a request body, a file stream, or text in tests and the CLI. */
export type LineSource = AsyncIterable<Buffer | string> | Iterable<Buffer | string> | string;

/**
 * The objects of a JSON-lines body as it arrives, `batchSize` at a time, without ever holding
 * the whole body: the same checks as `jsonLines`, plus a line longer than
 * `MAX_STREAMED_LINE_BYTES` is 413 PAYLOAD_TOO_LARGE.
 */
export async function* jsonLineBatches(
  source: LineSource,
  options: { maxLines: number; batchSize: number },
): AsyncGenerator<SourceRecord[]> {
  let batch: SourceRecord[] = [];
  let count = 0;
  let number = 0;
  const take = (raw: string) => {
    number++;
    const line = raw.trim();
    if (line === '') return;
    if (++count > options.maxLines) throw apiError('PAYLOAD_TOO_LARGE', `At most ${options.maxLines} lines per import.`);
    batch.push(parseLine(line, `line ${number}`));
  };
  let rest = '';
  // Bytes of one character can arrive in two chunks: the decoder keeps them until it is whole.
  const decoder = new StringDecoder('utf8');
  const chunks = typeof source === 'string' ? [source] : source;
  for await (const chunk of chunks) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const lines = text.split('\n');
    rest = lines.pop()!;
    if (rest.length > MAX_STREAMED_LINE_BYTES)
      throw apiError('PAYLOAD_TOO_LARGE', `line ${number + 1} is longer than ${MAX_STREAMED_LINE_BYTES} bytes`);
    for (const line of lines) {
      take(line);
      if (batch.length >= options.batchSize) {
        yield batch;
        batch = [];
      }
    }
  }
  rest += decoder.end();
  if (rest !== '') take(rest);
  if (batch.length > 0) yield batch;
}
