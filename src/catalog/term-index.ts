import type { Business } from '../businesses/business-record.js';
import { ancestorsOf } from './categories.js';
import { deletions, editDistance, GENERIC_CATEGORIES, indexWords, typoAllowance, type QueryWord } from './text.js';
import { isOneOf } from '../platform/query.js';
import { BoundedMap } from '../platform/bounded-map.js';

/**
 * How well a word describes a business (docs/search.md "Ranking"): a word of its name says the
 * most, then a word of one of its categories, then of a parent category; a word that only begins
 * a known word, or is one typo away from it, or a generic word ("food", "dinner") says the least.
 */
export const SCORE = { NAME: 6, CATEGORY: 5, ANCESTOR: 3, PREFIX: 2, TYPO: 1, GENERIC: 1 } as const;

/** Relevance added when the term is the business's whole name (stopwords aside): a name search finds it first. */
export const WHOLE_NAME = 10;

/** The index word every business in the restaurants or food categories carries; generic query words match it. */
export const GENERIC_TOKEN = '\u0001generic';

/** The words a business is found by, each with its best score. */
export function termsOf(business: Business, shared: (word: string) => string = (w) => w): Map<string, number> {
  const terms = new Map<string, number>();
  const add = (text: string, score: number) => {
    for (const word of indexWords(text)) if ((terms.get(word) ?? 0) < score) terms.set(shared(word), score);
  };
  let generic = false;
  for (const category of business.categories) {
    add(category.alias, SCORE.CATEGORY);
    add(category.title, SCORE.CATEGORY);
    if (isOneOf(GENERIC_CATEGORIES, category.alias)) generic = true;
    for (const ancestor of ancestorsOf(category.alias)) {
      add(ancestor.alias, SCORE.ANCESTOR);
      add(ancestor.title, SCORE.ANCESTOR);
      if (isOneOf(GENERIC_CATEGORIES, ancestor.alias)) generic = true;
    }
  }
  add(business.name, SCORE.NAME);
  if (generic) terms.set(GENERIC_TOKEN, SCORE.GENERIC);
  return terms;
}

/** The businesses one query word matches, by ordinal (ascending), with the word's score for each. */
export class WordMatch {
  private denseScores: Uint8Array | undefined;

  constructor(
    readonly ordinals: Int32Array,
    readonly scores: Uint8Array,
  ) {}

  get size(): number {
    return this.ordinals.length;
  }

  /** The score of each ordinal below `capacity` (0: no match), for checking other words' candidates. */
  dense(capacity: number): Uint8Array {
    if (!this.denseScores || this.denseScores.length < capacity) {
      const dense = new Uint8Array(capacity);
      for (let i = 0; i < this.ordinals.length; i++) dense[this.ordinals[i]] = this.scores[i];
      this.denseScores = dense;
    }
    return this.denseScores;
  }
}

const MAX_REMEMBERED_WORDS = 1_000;

/** Index words → businesses, with the lookups of a query word: exact, prefix, one typo away. */
export class TermIndex {
  private readonly postings = new Map<string, Map<number, number>>();
  private vocabularyVersion = 0;
  private sorted: { version: number; words: string[] } | undefined;
  private typos: { version: number; byDeletion: Map<string, string[]> } | undefined;
  private readonly remembered = new BoundedMap<string, WordMatch>(MAX_REMEMBERED_WORDS);

  add(ordinal: number, terms: ReadonlyMap<string, number>): void {
    for (const [word, score] of terms) {
      let posting = this.postings.get(word);
      if (!posting) {
        this.postings.set(word, (posting = new Map()));
        this.vocabularyVersion++;
      }
      posting.set(ordinal, score);
    }
    this.remembered.clear();
  }

  remove(ordinal: number, terms: ReadonlyMap<string, number>): void {
    for (const word of terms.keys()) {
      const posting = this.postings.get(word);
      if (!posting) continue;
      posting.delete(ordinal);
      if (posting.size === 0) {
        this.postings.delete(word);
        this.vocabularyVersion++;
      }
    }
    this.remembered.clear();
  }

  /** The businesses a query word matches (remembered until the index changes). */
  match(query: QueryWord): WordMatch {
    const key = `${query.generic ? 'g' : 'w'}:${query.word}`;
    let found = this.remembered.get(key);
    if (!found) {
      found = this.compute(query);
      this.remembered.set(key, found);
    }
    return found;
  }

  /** The index words a query word stands for, and the score each gives (undefined: the word's own scores). */
  expansions(query: QueryWord): Array<[string, number | undefined]> {
    if (query.generic) return [[GENERIC_TOKEN, undefined]];
    const word = query.word;
    const out: Array<[string, number | undefined]> = [];
    if (this.postings.has(word)) out.push([word, undefined]);
    if (word.length >= 3) for (const longer of this.startingWith(word)) if (longer !== word) out.push([longer, SCORE.PREFIX]);
    if (out.length === 0) for (const near of this.typosOf(word)) out.push([near, SCORE.TYPO]);
    return out;
  }

  private compute(query: QueryWord): WordMatch {
    const best = new Map<number, number>();
    for (const [word, fixed] of this.expansions(query)) {
      for (const [ordinal, own] of this.postings.get(word) ?? []) {
        const score = fixed === undefined ? own : Math.min(own, fixed);
        if ((best.get(ordinal) ?? 0) < score) best.set(ordinal, score);
      }
    }
    const ordinals = Int32Array.from(best.keys()).sort();
    const scores = new Uint8Array(ordinals.length);
    for (let i = 0; i < ordinals.length; i++) scores[i] = best.get(ordinals[i])!;
    return new WordMatch(ordinals, scores);
  }

  /** Index words that begin with `prefix`, from the sorted vocabulary. */
  private *startingWith(prefix: string): Generator<string> {
    if (this.sorted?.version !== this.vocabularyVersion)
      this.sorted = { version: this.vocabularyVersion, words: [...this.postings.keys()].sort() };
    const words = this.sorted.words;
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (words[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < words.length && words[i].startsWith(prefix); i++) yield words[i];
  }

  /** Index words within the word's typo allowance (text.ts), found through the deletions both share. */
  private typosOf(word: string): string[] {
    const allowance = typoAllowance(word);
    if (allowance === 0) return [];
    if (this.typos?.version !== this.vocabularyVersion) {
      const byDeletion = new Map<string, string[]>();
      const add = (key: string, token: string) => {
        const list = byDeletion.get(key);
        if (!list) byDeletion.set(key, [token]);
        else if (list[list.length - 1] !== token) list.push(token);
      };
      for (const token of this.postings.keys()) {
        if (token.length < 4 || !/^[a-z]+$/.test(token)) continue;
        add(token, token);
        for (const d of deletions(token)) add(d, token);
      }
      this.typos = { version: this.vocabularyVersion, byDeletion };
    }
    const keys = new Set([word, ...deletions(word)]);
    if (allowance > 1) for (const d of deletions(word)) for (const dd of deletions(d)) keys.add(dd);
    const candidates = new Set<string>();
    for (const k of keys) for (const token of this.typos.byDeletion.get(k) ?? []) candidates.add(token);
    return [...candidates].filter((token) => editDistance(word, token, allowance) <= allowance);
  }
}
