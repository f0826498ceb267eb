/**
 * Limits on the shape of a JSON text, checked before it is parsed. `JSON.parse` of 400,000
 * nested `[` takes about half a second of CPU on one thread, during which the process answers
 * nobody; this scan stops at the first bracket too deep or the first value too many, so refusing
 * such a body costs only the bytes read up to that point (docs/security.md, "Expensive input").
 */

/** Deeper than any body pbs reads (a business record with its hours is 6 levels). */
export const MAX_JSON_DEPTH = 32;
/** Values (array elements and object members) in one text: far above any body within 1 MiB that pbs reads. */
export const MAX_JSON_VALUES = 100_000;

const OPEN_ARRAY = 0x5b; // [
const OPEN_OBJECT = 0x7b; // {
const CLOSE_ARRAY = 0x5d; // ]
const CLOSE_OBJECT = 0x7d; // }
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Why `text` is refused before parsing (too deep, too many values), or undefined when it may be
 * parsed. Malformed JSON is not judged here: `JSON.parse` says what is wrong with it.
 */
export function jsonShapeProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): string | undefined {
  let depth = 0;
  let values = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: brackets and commas inside it are text.
      for (i++; i < length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return `JSON nested deeper than ${maxDepth} levels is not accepted.`;
      if (++values > maxValues) return `JSON with more than ${maxValues} values is not accepted.`;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    } else if (c === COMMA) {
      if (++values > maxValues) return `JSON with more than ${maxValues} values is not accepted.`;
    }
  }
  return undefined;
}
