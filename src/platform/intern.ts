/**
 * One shared copy of values that repeat across many records (a time zone, a category alias, a
 * restaurant's opening pattern): a catalogue of 100,000 restaurants holds most of them a few
 * hundred times over, and a parsed copy each would cost kilobytes per restaurant. Interned
 * objects are frozen: they are shared, so nobody may change them.
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly values = new Map<string, unknown>();

  constructor(private readonly max = 200_000) {}

  string(value: string): string {
    const kept = this.strings.get(value);
    if (kept !== undefined) return kept;
    if (this.strings.size < this.max) this.strings.set(value, value);
    return value;
  }

  /** A frozen copy shared by every equal value (compared as JSON). */
  value<T>(value: T): T {
    const key = JSON.stringify(value);
    const kept = this.values.get(key);
    // Cast: it was kept under the JSON of a T, and equal JSON is an equal value of the same type.
    if (kept !== undefined) return kept as T;
    const frozen = deepFreeze(value);
    if (this.values.size < this.max) this.values.set(key, frozen);
    return frozen;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The interner of the in-memory catalogue (businesses and reservation inventory). */
export const catalogInterner = new Interner();
