import type { BusinessHours } from '../businesses/business-record.js';
import { slugify } from '../businesses/business-record.js';

/** Deterministic PRNG (mulberry32) so the demo dataset, ids included, is the same on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface City {
  name: string;
  state: string;
  country: string;
  timezone: string;
  latitude: number;
  longitude: number;
  areaCode: string;
  zipCodes: string[];
  streets: string[];
}

export const demoCities: City[] = [
  {
    name: 'San Francisco',
    state: 'CA',
    country: 'US',
    timezone: 'America/Los_Angeles',
    latitude: 37.7749,
    longitude: -122.4194,
    areaCode: '415',
    zipCodes: ['94102', '94103', '94107', '94109', '94110', '94111', '94114', '94117', '94122', '94133'],
    streets: [
      'Valencia St',
      'Mission St',
      'Market St',
      'Grant Ave',
      'Hayes St',
      'Divisadero St',
      'Irving St',
      'Columbus Ave',
      'Fillmore St',
      'Polk St',
    ],
  },
  {
    name: 'Toronto',
    state: 'ON',
    country: 'CA',
    timezone: 'America/Toronto',
    latitude: 43.6532,
    longitude: -79.3832,
    areaCode: '416',
    zipCodes: ['M5V 2T6', 'M5T 1R5', 'M6J 1J2', 'M4Y 1R5', 'M5A 1J7', 'M6G 1L5', 'M5R 2E3', 'M4M 1H1', 'M6K 1X9', 'M5S 2M8'],
    streets: [
      'Queen St W',
      'King St W',
      'Ossington Ave',
      'Dundas St W',
      'College St',
      'Spadina Ave',
      'Yonge St',
      'Bloor St W',
      'Danforth Ave',
      'Front St E',
    ],
  },
];

const cuisines: Array<{ alias: string; title: string; nouns: string[] }> = [
  { alias: 'italian', title: 'Italian', nouns: ['Trattoria', 'Osteria', 'Cucina'] },
  { alias: 'french', title: 'French', nouns: ['Bistro', 'Brasserie', 'Café'] },
  { alias: 'japanese', title: 'Japanese', nouns: ['Izakaya', 'Kitchen', 'House'] },
  { alias: 'sushi', title: 'Sushi Bars', nouns: ['Sushi', 'Omakase', 'Sushi Bar'] },
  { alias: 'mexican', title: 'Mexican', nouns: ['Taqueria', 'Cocina', 'Cantina'] },
  { alias: 'newamerican', title: 'American (New)', nouns: ['Kitchen', 'Table', 'Tavern'] },
  { alias: 'thai', title: 'Thai', nouns: ['Thai Kitchen', 'Noodle House', 'Thai'] },
  { alias: 'chinese', title: 'Chinese', nouns: ['Dumpling House', 'Garden', 'Noodle Bar'] },
  { alias: 'indpak', title: 'Indian', nouns: ['Tandoor', 'Curry House', 'Masala'] },
  { alias: 'mediterranean', title: 'Mediterranean', nouns: ['Taverna', 'Mezze', 'Grill'] },
  { alias: 'seafood', title: 'Seafood', nouns: ['Oyster Bar', 'Fish House', 'Crab Shack'] },
  { alias: 'steak', title: 'Steakhouses', nouns: ['Steakhouse', 'Chophouse', 'Grill'] },
  { alias: 'vegan', title: 'Vegan', nouns: ['Greens', 'Kitchen', 'Garden'] },
  { alias: 'pizza', title: 'Pizza', nouns: ['Pizzeria', 'Pizza', 'Slice'] },
];
const extraCategories = [
  { alias: 'wine_bars', title: 'Wine Bars' },
  { alias: 'cocktailbars', title: 'Cocktail Bars' },
  { alias: 'breakfast_brunch', title: 'Breakfast & Brunch' },
  { alias: 'desserts', title: 'Desserts' },
];
const adjectives = [
  'Golden',
  'Little',
  'Blue',
  'Red',
  'Olive',
  'Copper',
  'Salt',
  'Fig',
  'Ember',
  'Harbor',
  'Juniper',
  'Saffron',
  'Maple',
  'Cedar',
  'Lantern',
  'Velvet',
  'Wild',
  'North',
  'Sunny',
  'Silver',
];

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)];
}

function stableId(random: () => number): string {
  let id = '';
  for (let i = 0; i < 22; i++) id += ID_ALPHABET[Math.floor(random() * ID_ALPHABET.length)];
  return id;
}

function hoursFor(random: () => number): BusinessHours[] {
  const lunch = random() < 0.6;
  const late = random() < 0.25;
  const closedMonday = random() < 0.4;
  const open = [];
  for (let day = 0; day < 7; day++) {
    if (day === 0 && closedMonday) continue;
    const weekend = day >= 4;
    if (lunch) open.push({ day, start: '1130', end: '1430', is_overnight: false });
    const end = late && weekend ? '0100' : weekend ? '2300' : '2200';
    open.push({ day, start: '1700', end, is_overnight: end < '1700' });
  }
  return [{ hours_type: 'REGULAR', open }];
}

/** Generates `perCity` restaurants in each demo city (60 by default), the same every time. */
export function generateDemoBusinesses(perCity = 30, seed = 20261122, cities: City[] = demoCities) {
  const random = seededRandom(seed);
  const businesses = [];
  const usedNames = new Set<string>();
  for (const city of cities) {
    for (let i = 0; i < perCity; i++) {
      const cuisine = pick(random, cuisines);
      let name = `${pick(random, adjectives)} ${pick(random, cuisine.nouns)}`;
      // Large generated metros run out of combinations: number the rest.
      for (let tries = 0; usedNames.has(`${name}|${city.name}`); tries++) {
        name = tries < 5 ? `${pick(random, adjectives)} ${pick(random, cuisine.nouns)}` : `${name.replace(/ \d+$/, '')} ${i + 1}`;
      }
      usedNames.add(`${name}|${city.name}`);
      const categories = [{ alias: cuisine.alias, title: cuisine.title }];
      if (random() < 0.35) categories.push(pick(random, extraCategories));
      const id = stableId(random);
      const alias = slugify(`${name} ${city.name}`);
      const street = `${100 + Math.floor(random() * 3800)} ${pick(random, city.streets)}`;
      const zip = pick(random, city.zipCodes);
      const phone = `+1${city.areaCode}555${String(Math.floor(random() * 10000)).padStart(4, '0')}`;
      const reservable = random() < 0.8;
      const transactions = [...(reservable ? ['restaurant_reservation'] : []), ...(random() < 0.5 ? ['pickup', 'delivery'] : [])];
      // About 1.4 km around the centre: a walkable downtown.
      const latitude = Math.round((city.latitude + (random() - 0.5) * 0.05) * 1e6) / 1e6;
      const longitude = Math.round((city.longitude + (random() - 0.5) * 0.06) * 1e6) / 1e6;
      businesses.push({
        id,
        alias,
        name,
        image_url: `https://images.example.com/${alias}/o.jpg`,
        is_closed: false,
        // Restaurants that take bookings through a partner have an owner who claimed them.
        is_claimed: reservable,
        url: `https://www.example.com/biz/${alias}`,
        review_count: 5 + Math.floor(random() ** 2 * 2500),
        categories,
        rating: 2.5 + Math.floor(random() * 6) / 2,
        coordinates: { latitude, longitude },
        transactions,
        price: '$'.repeat(1 + Math.floor(random() * 4)),
        location: {
          address1: street,
          address2: '',
          address3: '',
          city: city.name,
          zip_code: zip,
          country: city.country,
          state: city.state,
          display_address: [street, `${city.name}, ${city.state} ${zip}`],
          cross_streets: null,
        },
        phone,
        attributes: {
          ...(reservable ? { reservation: true } : {}),
          ...(random() < 0.5 ? { outdoor_seating: true } : {}),
          ...(random() < 0.7 ? { wheelchair_accessible: true } : {}),
        },
        timezone: city.timezone,
        hours: hoursFor(random),
        specialties: `${cuisine.title} cooking with seasonal ingredients.`,
      });
    }
  }
  return businesses;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(2));
const fromMinutes = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/**
 * A plausible reservation inventory for a demo restaurant: seatings follow its opening hours
 * (last seating an hour before closing), a mix of 2-, 4-, 6- and 8-tops, and a quarter of the
 * restaurants asking for a card for large parties.
 */
export function demoReservationSettings(business: { hours: BusinessHours[] }, random: () => number) {
  const service_hours = [];
  for (const interval of business.hours[0]?.open ?? []) {
    const start = Math.ceil(minutesOf(interval.start) / 15) * 15;
    const end = interval.is_overnight ? 23 * 60 : minutesOf(interval.end);
    const last = Math.floor((end - 60) / 15) * 15;
    if (last >= start) service_hours.push({ day: interval.day, start: fromMinutes(start), last_seating: fromMinutes(last) });
  }
  const bigParties = random() < 0.3;
  const tables = [
    ...Array.from({ length: 4 }, (_, i) => ({ name: `T${i + 1}`, min_party: 1, max_party: 2 })),
    ...Array.from({ length: 3 }, (_, i) => ({ name: `T${i + 5}`, min_party: 2, max_party: 4 })),
    { name: 'T8', min_party: 3, max_party: 6 },
    { name: 'T9', min_party: 5, max_party: 8 },
    ...(bigParties ? [{ name: 'T10', min_party: 6, max_party: 10 }] : []),
  ];
  return {
    accepts_reservations: true,
    party_size: { min: 1, max: bigParties ? 10 : 8 },
    max_future_days: 90,
    min_notice_minutes: 60,
    service_hours,
    closed_dates: [],
    tables,
    turn_times: [
      { max_party: 2, minutes: 90 },
      { max_party: 6, minutes: 120 },
      { max_party: null, minutes: 150 },
    ],
    credit_card: { min_party: random() < 0.25 ? 7 : null, dates: [] },
    cancellation: { policy: 'Please cancel at least 2 hours ahead.', cutoff_minutes: 120 },
    notes: pick(random, [
      '',
      'Patio seating is first come, first served.',
      'Ask for the chef’s counter.',
      'Parking in the garage next door.',
    ]),
    is_editable: false,
  };
}
