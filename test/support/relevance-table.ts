/**
 * The relevance table of docs/search.md ("Relevance over the demo data"): what people type, over
 * the demo dataset's 60 restaurants, and what search must answer. `top` are the first results in
 * order; `total` the count. test/catalogue/search-relevance.test.ts holds search and the doc to it.
 */
export const SF = 'San Francisco';
const TORONTO = 'Toronto';
export const RELEVANCE_TABLE: Array<{ term: string; location: string; total: number; top: string[]; why: string }> = [
  {
    term: 'dinner',
    location: SF,
    total: 30,
    top: ['Fig Taverna', 'Juniper Trattoria'],
    why: 'a generic word: every restaurant, best first',
  },
  { term: 'food', location: SF, total: 30, top: ['Fig Taverna'], why: 'generic' },
  { term: 'lunch', location: TORONTO, total: 30, top: [], why: 'generic' },
  { term: 'restaurants', location: SF, total: 30, top: [], why: 'the parent category, plural' },
  { term: 'place to eat', location: SF, total: 30, top: [], why: 'stopwords dropped; "eat" is generic' },
  {
    term: 'italian',
    location: SF,
    total: 5,
    top: ['Juniper Trattoria', 'Harbor Osteria', 'Blue Cucina', 'Cedar Osteria', 'Blue Osteria'],
    why: 'a category title',
  },
  { term: 'ITALIAN', location: SF, total: 5, top: ['Juniper Trattoria'], why: 'case folded' },
  { term: 'italian food', location: SF, total: 5, top: ['Juniper Trattoria', 'Harbor Osteria'], why: 'a cuisine and a generic word' },
  { term: 'mexican food', location: SF, total: 1, top: ['Wild Taqueria'], why: 'a cuisine and a generic word' },
  { term: 'pizza', location: SF, total: 2, top: ['Blue Pizzeria', 'Wild Pizzeria'], why: 'a category alias' },
  { term: 'sushi', location: TORONTO, total: 2, top: ['Maple Sushi', 'Ember Omakase'], why: 'a name word ranks above a category word' },
  { term: 'japanese', location: SF, total: 5, top: ['Golden Kitchen', 'Golden Izakaya'], why: 'a category' },
  { term: 'golden kitchen', location: SF, total: 1, top: ['Golden Kitchen'], why: 'a business name: every word' },
  { term: 'Golden Kitchen', location: TORONTO, total: 1, top: ['Golden Kitchen'], why: 'the same name in another city' },
  { term: 'trattoria', location: SF, total: 1, top: ['Juniper Trattoria'], why: 'a name word' },
  { term: 'trattoira', location: SF, total: 1, top: ['Juniper Trattoria'], why: 'a misspelt name word (two letters swapped)' },
  { term: 'osteria', location: SF, total: 3, top: ['Harbor Osteria', 'Cedar Osteria', 'Blue Osteria'], why: 'a name word, by quality' },
  { term: 'izakayas', location: SF, total: 3, top: ['Golden Izakaya', 'Cedar Izakaya', 'Harbor Izakaya'], why: 'a plural' },
  { term: 'indpak', location: SF, total: 1, top: ['Cedar Tandoor'], why: 'a category alias that is not a word' },
  { term: 'indian', location: SF, total: 1, top: ['Cedar Tandoor'], why: 'its title' },
  {
    term: 'steakhouses',
    location: SF,
    total: 4,
    top: ['Blue Steakhouse', 'Olive Chophouse'],
    why: 'a category title in the plural; the name match first',
  },
  { term: 'wine bar', location: SF, total: 6, top: [], why: 'two words of one category' },
  {
    term: 'bars',
    location: SF,
    total: 12,
    top: ['Harbor Oyster Bar', 'Velvet Noodle Bar', 'Olive Noodle Bar'],
    why: 'a parent category; names first',
  },
  {
    term: 'noodles',
    location: SF,
    total: 3,
    top: ['Fig Noodle House', 'Velvet Noodle Bar', 'Olive Noodle Bar'],
    why: 'a plural name word',
  },
  { term: 'brunch', location: SF, total: 4, top: ['Blue Pizzeria'], why: 'a word of the title "Breakfast & Brunch"' },
  { term: 'oster', location: SF, total: 3, top: ['Harbor Osteria'], why: 'the beginning of a word' },
  { term: 'cozy italian', location: SF, total: 5, top: ['Juniper Trattoria'], why: 'a word found nowhere is left out' },
  { term: 'xyzzy', location: SF, total: 0, top: [], why: 'nothing found' },
];
