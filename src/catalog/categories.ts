/**
 * The category tree searches see (a subset of the public platform's): a business filed under
 * "italian" is also a restaurant, so `categories=restaurants` and `term=restaurants` find it,
 * as they do on the original. alias → [title, parent alias].
 */
const TREE: Record<string, [string, string | null]> = {
  restaurants: ['Restaurants', null],
  food: ['Food', null],
  nightlife: ['Nightlife', null],
  bars: ['Bars', 'nightlife'],
};

const RESTAURANT_KINDS: Record<string, string> = {
  afghani: 'Afghan',
  african: 'African',
  newamerican: 'American (New)',
  tradamerican: 'American (Traditional)',
  arabian: 'Arabic',
  argentine: 'Argentine',
  asianfusion: 'Asian Fusion',
  bbq: 'Barbeque',
  basque: 'Basque',
  belgian: 'Belgian',
  brazilian: 'Brazilian',
  breakfast_brunch: 'Breakfast & Brunch',
  british: 'British',
  burgers: 'Burgers',
  cafes: 'Cafes',
  cajun: 'Cajun/Creole',
  caribbean: 'Caribbean',
  chinese: 'Chinese',
  cuban: 'Cuban',
  delis: 'Delis',
  diners: 'Diners',
  ethiopian: 'Ethiopian',
  filipino: 'Filipino',
  french: 'French',
  gastropubs: 'Gastropubs',
  german: 'German',
  gluten_free: 'Gluten-Free',
  greek: 'Greek',
  halal: 'Halal',
  hawaiian: 'Hawaiian',
  indpak: 'Indian',
  indonesian: 'Indonesian',
  irish: 'Irish',
  italian: 'Italian',
  japanese: 'Japanese',
  korean: 'Korean',
  kosher: 'Kosher',
  latin: 'Latin American',
  malaysian: 'Malaysian',
  mediterranean: 'Mediterranean',
  mexican: 'Mexican',
  mideastern: 'Middle Eastern',
  noodles: 'Noodles',
  pakistani: 'Pakistani',
  persian: 'Persian/Iranian',
  peruvian: 'Peruvian',
  pizza: 'Pizza',
  polish: 'Polish',
  portuguese: 'Portuguese',
  russian: 'Russian',
  salad: 'Salad',
  sandwiches: 'Sandwiches',
  seafood: 'Seafood',
  soulfood: 'Soul Food',
  soup: 'Soup',
  southern: 'Southern',
  spanish: 'Spanish',
  steak: 'Steakhouses',
  sushi: 'Sushi Bars',
  tapas: 'Tapas Bars',
  thai: 'Thai',
  turkish: 'Turkish',
  vegan: 'Vegan',
  vegetarian: 'Vegetarian',
  vietnamese: 'Vietnamese',
};
for (const [alias, title] of Object.entries(RESTAURANT_KINDS)) TREE[alias] = [title, 'restaurants'];
TREE.dimsum = ['Dim Sum', 'chinese'];
TREE.ramen = ['Ramen', 'japanese'];
for (const [alias, title] of Object.entries({
  bakeries: 'Bakeries',
  coffee: 'Coffee & Tea',
  desserts: 'Desserts',
  icecream: 'Ice Cream & Frozen Yogurt',
  juicebars: 'Juice Bars & Smoothies',
  bagels: 'Bagels',
  donuts: 'Donuts',
  foodtrucks: 'Food Trucks',
})) {
  TREE[alias] = [title, 'food'];
}
for (const [alias, title] of Object.entries({
  wine_bars: 'Wine Bars',
  cocktailbars: 'Cocktail Bars',
  beerbar: 'Beer Bar',
  pubs: 'Pubs',
  sportsbars: 'Sports Bars',
  divebars: 'Dive Bars',
})) {
  TREE[alias] = [title, 'bars'];
}

/** The title of a category pbs knows by its alias, or undefined. */
export function categoryTitle(alias: string): string | undefined {
  return TREE[alias]?.[0];
}

/** A category's ancestors, nearest first (none for an alias outside the tree). */
export function ancestorsOf(alias: string): Array<{ alias: string; title: string }> {
  const out: Array<{ alias: string; title: string }> = [];
  for (let parent = TREE[alias]?.[1] ?? null; parent !== null && out.length < 10; parent = TREE[parent]?.[1] ?? null) {
    out.push({ alias: parent, title: TREE[parent][0] });
  }
  return out;
}
