import { apiError } from './errors.js';

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
    if (++count > maxLines) throw apiError('PAYLOAD_TOO_LARGE', `At most ${maxLines} lines per import; send more in batches (or use the CLI).`);
    const where = `line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw apiError('VALIDATION_ERROR', `${where}: not valid JSON`, { field: where });
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw apiError('VALIDATION_ERROR', `${where}: not an object`, { field: where });
    yield { value: value as Record<string, unknown>, where };
  }
}
