import { apiError } from '../platform/errors.js';
import type { ProgramType } from './advertising-tables.js';
import { isOneOf } from '../platform/query.js';

/**
 * The Program Feature API's rules, without a database (docs/advertising.md "Program features";
 * docs/contract/advertising.md §8.8): the feature types, which program types may have which, each type's fields with
 * their defaults, and the check of what a partner sends.
 */
export const FEATURE_TYPES = [
  'LINK_TRACKING',
  'NEGATIVE_KEYWORD_TARGETING',
  'STRICT_CATEGORY_TARGETING',
  'AD_SCHEDULING',
  'CUSTOM_LOCATION_TARGETING',
  'AD_GOAL',
  'CALL_TRACKING',
  'BUSINESS_HIGHLIGHTS',
  'VERIFIED_LICENSE',
  'CUSTOM_RADIUS_TARGETING',
  'CUSTOM_AD_TEXT',
  'CUSTOM_AD_PHOTO',
  'BUSINESS_LOGO',
  'YELP_PORTFOLIO',
] as const;
export type FeatureType = (typeof FEATURE_TYPES)[number];
export type FeatureValue = Record<string, unknown>;

/** The features page upgrades sell; cost-per-click ads take every other one (their targeting and tracking). */
const PAGE_UPGRADE_FEATURES: FeatureType[] = ['BUSINESS_HIGHLIGHTS', 'VERIFIED_LICENSE', 'BUSINESS_LOGO', 'YELP_PORTFOLIO'];
const CPC_FEATURES = FEATURE_TYPES.filter((type) => !PAGE_UPGRADE_FEATURES.includes(type));

/**
 * Which features a program of each type may have: ads (CPC) their targeting and tracking; page
 * upgrades the one feature they sell (a logo, highlights, a licence, a portfolio) or tracked
 * links and calls for the profile upgrades. Remove Competitor Ads has none.
 */
export const FEATURES_BY_PROGRAM: Record<ProgramType, readonly FeatureType[]> = {
  CPC: CPC_FEATURES,
  BP: ['LINK_TRACKING', 'CALL_TRACKING'],
  EP: ['LINK_TRACKING', 'CALL_TRACKING'],
  CTA: ['LINK_TRACKING'],
  SLIDESHOW: ['CUSTOM_AD_PHOTO'],
  BH: ['BUSINESS_HIGHLIGHTS'],
  VL: ['VERIFIED_LICENSE'],
  LOGO: ['BUSINESS_LOGO'],
  PORTFOLIO: ['YELP_PORTFOLIO'],
  RCA: [],
};

/** The highlights a business may show (BUSINESS_HIGHLIGHTS), at most MAX_ACTIVE_HIGHLIGHTS at a time. */
export const BUSINESS_HIGHLIGHTS = [
  'EMERGENCY_SERVICES',
  'FAMILY_OWNED',
  'FREE_ESTIMATES',
  'LOCALLY_OWNED',
  'OPEN_24_HOURS',
  'SATISFACTION_GUARANTEED',
  'VETERAN_OWNED',
  'WOMAN_OWNED',
  'ECO_FRIENDLY',
  'LICENSED_AND_INSURED',
] as const;
const MAX_ACTIVE_HIGHLIGHTS = 4;
export const MAX_CUSTOM_LOCATIONS = 25;
const MAX_KEYWORDS = 100;
const MAX_LICENSES = 10;
const MAX_PROJECTS = 50;
const AD_GOALS = ['DEFAULT', 'CALLS', 'WEBSITE_CLICKS'];
const US_STATES = new Set(
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR'.split(
    ' ',
  ),
);

/** What a feature reads as before anything is set (GET shows every feature a program may have). */
export function defaultFeature(type: FeatureType, businessId: string): FeatureValue {
  switch (type) {
    case 'LINK_TRACKING':
      return { website: null, menu: null, call_to_action: null };
    case 'NEGATIVE_KEYWORD_TARGETING':
      return { suggested_keywords: [], blocked_keywords: [] };
    case 'STRICT_CATEGORY_TARGETING':
      return { enabled: false };
    case 'AD_SCHEDULING':
      return { uses_opening_hours: false };
    case 'CUSTOM_LOCATION_TARGETING':
      return { businesses: [{ business_id: businessId, locations: [] }] };
    case 'AD_GOAL':
      return { ad_goal: 'DEFAULT' };
    case 'CALL_TRACKING':
      return { enabled: false, businesses: [{ business_id: businessId, metered_phone_number: null }] };
    case 'BUSINESS_HIGHLIGHTS':
      return { active_business_highlights: [], available_business_highlights: [...BUSINESS_HIGHLIGHTS] };
    case 'VERIFIED_LICENSE':
      return { licenses: [] };
    case 'CUSTOM_RADIUS_TARGETING':
      return { custom_radius: null };
    case 'CUSTOM_AD_TEXT':
      return { custom_review_id: null, custom_text: null };
    case 'CUSTOM_AD_PHOTO':
      return { custom_photo_id: null };
    case 'BUSINESS_LOGO':
      return { business_logo_url: null };
    case 'YELP_PORTFOLIO':
      return { projects: [] };
  }
}

/** 400 naming the feature field at fault (`features.AD_GOAL.ad_goal`). */
function bad(field: string, message: string): never {
  throw apiError('INVALID_REQUEST', `${field}: ${message}`, { field });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A reader of one feature object: refuses unknown keys, reads each known one by its rule. */
class Fields {
  constructor(
    private readonly value: Record<string, unknown>,
    private readonly where: string,
    allowed: string[],
  ) {
    for (const key of Object.keys(value))
      if (!allowed.includes(key)) bad(`${where}.${key}`, `not a field of this feature (fields: ${allowed.join(', ')})`);
  }

  has(key: string): boolean {
    return key in this.value;
  }

  boolean(key: string): boolean {
    const v = this.value[key];
    if (typeof v !== 'boolean') bad(`${this.where}.${key}`, 'must be true or false');
    return v;
  }

  /** A string of 1..max characters, or null when `nullable`. */
  text(key: string, max: number, nullable = true): string | null {
    const v = this.value[key] ?? null;
    if (v === null && nullable) return null;
    if (typeof v !== 'string' || v.trim() === '' || v.length > max)
      bad(`${this.where}.${key}`, `must be text of 1 to ${max} characters${nullable ? ' or null' : ''}`);
    return v;
  }

  url(key: string): string | null {
    const v = this.text(key, 2048);
    if (v !== null && !isHttpUrl(v)) bad(`${this.where}.${key}`, 'must be an http or https URL, or null');
    return v;
  }

  list(key: string, max: number): unknown[] {
    const v = this.value[key];
    if (!Array.isArray(v)) bad(`${this.where}.${key}`, 'must be an array');
    if (v.length > max) bad(`${this.where}.${key}`, `holds at most ${max} entries`);
    return v;
  }

  texts(key: string, max: number, maxLength: number): string[] {
    const texts = this.list(key, max).map((item: unknown, i) => {
      if (typeof item !== 'string' || item.trim() === '' || item.length > maxLength)
        bad(`${this.where}.${key}[${i}]`, `must be text of 1 to ${maxLength} characters`);
      return item;
    });
    return [...new Set(texts)];
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** A US location for CUSTOM_LOCATION_TARGETING: a ZIP code (`94103`) or a city with its state (`San Francisco, CA`). */
export function isUsLocation(text: string): boolean {
  if (/^\d{5}$/.test(text)) return true;
  const cityState = /^([^,]{1,80}),\s*([A-Za-z]{2})$/.exec(text.trim());
  return cityState !== null && US_STATES.has(cityState[2].toUpperCase());
}

/** The one business entry a per-business feature lists: the program's business (a program has one). */
function businessEntries(
  fields: Fields,
  where: string,
  businessId: string,
  read: (entry: Fields, at: string) => FeatureValue,
): FeatureValue[] {
  const list = fields.list('businesses', 1);
  return list.map((entry, i) => {
    const at = `${where}.businesses[${i}]`;
    if (!isObject(entry)) bad(at, 'must be an object');
    const f = new Fields(entry, at, ['business_id', 'locations', 'metered_phone_number']);
    if (f.text('business_id', 64, false) !== businessId) bad(`${at}.business_id`, "must be the program's business");
    return { business_id: businessId, ...read(f, at) };
  });
}

/**
 * The feature as it will be stored, from what a partner sent, or 400 naming the field. Every
 * field of a type may be sent alone; a field left out keeps its present value (`current`).
 */
export function readFeature(type: FeatureType, sent: unknown, current: FeatureValue, businessId: string): FeatureValue {
  const where = `features.${type}`;
  if (!isObject(sent)) bad(where, 'must be an object');
  switch (type) {
    case 'LINK_TRACKING': {
      const f = new Fields(sent, where, ['website', 'menu', 'call_to_action']);
      const next = { ...current };
      for (const key of ['website', 'menu', 'call_to_action']) if (f.has(key)) next[key] = f.url(key);
      return next;
    }
    case 'NEGATIVE_KEYWORD_TARGETING': {
      // suggested_keywords is pbs's to say (none: it keeps no search logs); a partner sets the blocked ones.
      const f = new Fields(sent, where, ['blocked_keywords', 'suggested_keywords']);
      return { ...current, ...(f.has('blocked_keywords') ? { blocked_keywords: f.texts('blocked_keywords', MAX_KEYWORDS, 80) } : {}) };
    }
    case 'STRICT_CATEGORY_TARGETING':
      return { enabled: new Fields(sent, where, ['enabled']).boolean('enabled') };
    case 'AD_SCHEDULING':
      return { uses_opening_hours: new Fields(sent, where, ['uses_opening_hours']).boolean('uses_opening_hours') };
    case 'CUSTOM_LOCATION_TARGETING': {
      const f = new Fields(sent, where, ['businesses']);
      return {
        businesses: businessEntries(f, where, businessId, (entry, at) => {
          const locations = entry.texts('locations', MAX_CUSTOM_LOCATIONS, 100);
          locations.forEach(
            (l, i) =>
              isUsLocation(l) || bad(`${at}.locations[${i}]`, 'must be a US ZIP code (94103) or a city with its state (San Francisco, CA)'),
          );
          return { locations };
        }),
      };
    }
    case 'AD_GOAL': {
      const goal = new Fields(sent, where, ['ad_goal']).text('ad_goal', 20, false)!;
      if (!AD_GOALS.includes(goal)) bad(`${where}.ad_goal`, `must be one of ${AD_GOALS.join(', ')}`);
      return { ad_goal: goal };
    }
    case 'CALL_TRACKING': {
      const f = new Fields(sent, where, ['enabled', 'businesses']);
      return {
        enabled: f.has('enabled') ? f.boolean('enabled') : current.enabled,
        businesses: f.has('businesses')
          ? businessEntries(f, where, businessId, (entry, at) => {
              const phone = entry.text('metered_phone_number', 16);
              if (phone !== null && !/^\+[1-9]\d{6,14}$/.test(phone))
                bad(`${at}.metered_phone_number`, 'must be a phone number in E.164 form (+14155550123), or null');
              return { metered_phone_number: phone };
            })
          : current.businesses,
      };
    }
    case 'BUSINESS_HIGHLIGHTS': {
      const f = new Fields(sent, where, ['active_business_highlights', 'available_business_highlights']);
      const active = f.texts('active_business_highlights', MAX_ACTIVE_HIGHLIGHTS, 40);
      active.forEach(
        (h, i) =>
          isOneOf(BUSINESS_HIGHLIGHTS, h) ||
          bad(`${where}.active_business_highlights[${i}]`, `must be one of ${BUSINESS_HIGHLIGHTS.join(', ')}`),
      );
      return { active_business_highlights: active, available_business_highlights: [...BUSINESS_HIGHLIGHTS] };
    }
    case 'VERIFIED_LICENSE': {
      const f = new Fields(sent, where, ['licenses']);
      return {
        licenses: f.list('licenses', MAX_LICENSES).map((license, i) => {
          const at = `${where}.licenses[${i}]`;
          if (!isObject(license)) bad(at, 'must be an object');
          const l = new Fields(license, at, ['license_number', 'license_expiry_date', 'license_trade', 'license_issuing_agency']);
          const expiry = l.text('license_expiry_date', 10);
          if (expiry !== null && !/^\d{4}-\d{2}-\d{2}$/.test(expiry)) bad(`${at}.license_expiry_date`, 'must be YYYY-MM-DD or null');
          // pbs verifies nothing itself: a licence waits for the operator (docs/advertising.md).
          return {
            license_number: l.text('license_number', 64, false),
            license_expiry_date: expiry,
            license_trade: l.text('license_trade', 100),
            license_issuing_agency: l.text('license_issuing_agency', 200),
            license_verification_status: 'PENDING',
          };
        }),
      };
    }
    case 'CUSTOM_RADIUS_TARGETING': {
      const radius = new Fields(sent, where, ['custom_radius']).has('custom_radius') ? sent.custom_radius : undefined;
      if (radius !== null && (typeof radius !== 'number' || !Number.isFinite(radius) || radius < 1 || radius > 60)) {
        bad(`${where}.custom_radius`, 'must be a number of miles from 1 to 60, or null');
      }
      return { custom_radius: radius };
    }
    case 'CUSTOM_AD_TEXT': {
      const f = new Fields(sent, where, ['custom_review_id', 'custom_text']);
      const review = f.text('custom_review_id', 64);
      const text = f.text('custom_text', 1000);
      if (review !== null && text !== null) bad(where, 'give custom_review_id or custom_text, not both');
      return { custom_review_id: review, custom_text: text };
    }
    case 'CUSTOM_AD_PHOTO':
      return { custom_photo_id: new Fields(sent, where, ['custom_photo_id']).text('custom_photo_id', 64) };
    case 'BUSINESS_LOGO':
      return { business_logo_url: new Fields(sent, where, ['business_logo_url']).url('business_logo_url') };
    case 'YELP_PORTFOLIO': {
      const f = new Fields(sent, where, ['projects']);
      const seen = new Set<string>();
      return {
        projects: f.list('projects', MAX_PROJECTS).map((project, i) => {
          const at = `${where}.projects[${i}]`;
          if (!isObject(project)) bad(at, 'must be an object');
          const p = new Fields(project, at, ['project_id', 'published']);
          const id = p.text('project_id', 64, false)!;
          if (seen.has(id)) bad(`${at}.project_id`, `${id} is listed twice`);
          seen.add(id);
          return { project_id: id, published: p.has('published') ? p.boolean('published') : true };
        }),
      };
    }
  }
}

/** The feature types a request names, checked against what the program's type may have. */
export function featureTypesFor(programType: ProgramType, names: string[], where: string): FeatureType[] {
  const allowed = FEATURES_BY_PROGRAM[programType];
  return names.map((name) => {
    if (!isOneOf(FEATURE_TYPES, name)) bad(`${where}.${name}`, `not a feature type (types: ${FEATURE_TYPES.join(', ')})`);
    if (!allowed.includes(name)) {
      bad(`${where}.${name}`, `a ${programType} program cannot have this feature (it may have: ${allowed.join(', ') || 'none'})`);
    }
    return name;
  });
}
