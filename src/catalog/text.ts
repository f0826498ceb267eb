/**
 * How words are compared in search (docs/search.md "Words"): case and accents folded, light
 * English plurals removed, a few words ignored and a few generic words that mean "somewhere to
 * eat". Index and query go through the same functions, so they always agree.
 */

import { foldText } from '../platform/text.js';

export { foldText };

/**
 * A word's singular by the regular English rules (bakeries → bakery, lunches → lunch, bars →
 * bar); short words and the usual non-plural endings (-ss, -us, -is) are left alone.
 */
export function stem(word: string): string {
  const n = word.length;
  if (n <= 3 || /^[0-9]/.test(word)) return word;
  if (word.endsWith('ies') && n > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses') || word.endsWith('xes') || word.endsWith('ches') || word.endsWith('shes')) return word.slice(0, -2);
  if (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** The words of a text as the index keeps them: folded and singular. */
export function indexWords(text: string): string[] {
  const folded = foldText(text);
  return folded === '' ? [] : folded.split(' ').map(stem);
}

/** Words a person adds to a search that say nothing about the business (after `stem`). */
const STOPWORDS = new Set(
  'a an the and or of in on at for to with by near me my nearby around best good great nice top some any place spot open now new'
    .split(' ')
    .map(stem),
);

/**
 * Words a person types when they want somewhere to eat, not a kind of food: they match every
 * business filed under the `restaurants` or `food` categories (after `stem`).
 */
const GENERIC = new Set(
  'food foods dinner dinners lunch lunches supper restaurant restaurants eat eats eating eatery eateries dine dining meal meals cuisine cuisines'
    .split(' ')
    .map(stem),
);

/** The parent categories a generic word stands for. */
export const GENERIC_CATEGORIES = ['restaurants', 'food'] as const;

export interface QueryWord {
  /** Folded and singular. */
  word: string;
  /** Stands for the restaurants and food categories rather than for itself. */
  generic: boolean;
}

/**
 * The words of a `term` that count, in order, each once. Stopwords are dropped, unless the term
 * is nothing but stopwords (then they are all there is to go on).
 */
export function queryWords(term: string): QueryWord[] {
  const all = indexWords(term);
  const kept = all.filter((w) => !STOPWORDS.has(w));
  const words = kept.length > 0 ? kept : all;
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const word of words) {
    if (seen.has(word)) continue;
    seen.add(word);
    out.push({ word, generic: GENERIC.has(word) });
  }
  return out;
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment), stopping early: answers
 * `max + 1` as soon as the distance must exceed `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const m = a.length;
  const n = b.length;
  let before = new Array<number>(n + 1).fill(0);
  let previous = Array.from({ length: n + 1 }, (_, j) => j);
  let current = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[n];
}

/** The longest edit distance a misspelt word may be from a known one: none below 5 letters, 1 up to 8, 2 beyond. */
export function typoAllowance(word: string): number {
  if (word.length < 5 || /[0-9]/.test(word)) return 0;
  return word.length <= 8 ? 1 : 2;
}

/** Every string made by deleting one character of `word` (the keys of the misspelling index). */
export function deletions(word: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < word.length; i++) out.push(word.slice(0, i) + word.slice(i + 1));
  return out;
}
