import { apiError } from '../platform/errors.js';

/** The 42 supported locales (docs/contract/reviews-and-engagement.md §7.4), `{language}_{COUNTRY}`. */
export const SUPPORTED_LOCALES = [
  'cs_CZ',
  'da_DK',
  'de_AT',
  'de_CH',
  'de_DE',
  'en_AU',
  'en_BE',
  'en_CA',
  'en_CH',
  'en_GB',
  'en_HK',
  'en_IE',
  'en_MY',
  'en_NZ',
  'en_PH',
  'en_SG',
  'en_US',
  'es_AR',
  'es_CL',
  'es_ES',
  'es_MX',
  'fi_FI',
  'fil_PH',
  'fr_BE',
  'fr_CA',
  'fr_CH',
  'fr_FR',
  'it_CH',
  'it_IT',
  'ja_JP',
  'ms_MY',
  'nb_NO',
  'nl_BE',
  'nl_NL',
  'pl_PL',
  'pt_BR',
  'pt_PT',
  'sv_FI',
  'sv_SE',
  'tr_TR',
  'zh_HK',
  'zh_TW',
] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];

const supported = new Set<string>(SUPPORTED_LOCALES);

/** The locale a request gets when it names none (the original's default, docs/contract/reviews-and-engagement.md §7.1). */
export const DEFAULT_LOCALE: Locale = 'en_US';

/** A bare language in Accept-Language (`fr`) → the locale it means. */
const LANGUAGE_DEFAULTS: Record<string, Locale> = {
  cs: 'cs_CZ',
  da: 'da_DK',
  de: 'de_DE',
  en: 'en_US',
  es: 'es_ES',
  fi: 'fi_FI',
  fil: 'fil_PH',
  fr: 'fr_FR',
  it: 'it_IT',
  ja: 'ja_JP',
  ms: 'ms_MY',
  nb: 'nb_NO',
  no: 'nb_NO',
  nl: 'nl_NL',
  pl: 'pl_PL',
  pt: 'pt_BR',
  sv: 'sv_SE',
  tr: 'tr_TR',
  zh: 'zh_TW',
};

export function isSupportedLocale(value: string): value is Locale {
  return supported.has(value);
}

/** The language of a locale: `en_GB` → `en` (reviews are written in a language, not a country). */
export function languageOf(locale: string): string {
  return locale.slice(0, locale.indexOf('_'));
}

/** `en-US` / `en_us` → `en_US`; anything else unchanged. */
function canonical(tag: string): string {
  const m = /^([A-Za-z]{2,3})[-_]([A-Za-z]{2})$/.exec(tag.trim());
  return m ? `${m[1].toLowerCase()}_${m[2].toUpperCase()}` : tag.trim();
}

/**
 * The first supported locale of an Accept-Language header, by quality (a bare language picks its
 * usual locale); undefined when it names none. A header is not refused: browsers and HTTP
 * libraries send whatever their platform speaks, so an unusable one falls back to the default.
 */
export function localeFromAcceptLanguage(header: string | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranges = header
    .slice(0, 1000)
    .split(',')
    .slice(0, 50)
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag.trim(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((r) => r.tag !== '' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranges) {
    const locale = canonical(tag);
    if (isSupportedLocale(locale)) return locale;
    const fallback = LANGUAGE_DEFAULTS[tag.toLowerCase()];
    if (fallback) return fallback;
  }
  return undefined;
}

/**
 * The locale of a request (docs/contract/reviews-and-engagement.md §7.1): the `locale` parameter wins over Accept-Language and must
 * be supported (else 400 VALIDATION_ERROR); then Accept-Language; then en_US.
 */
export function requestLocale(localeParam: string | undefined, acceptLanguage: string | undefined): Locale {
  if (localeParam !== undefined && localeParam !== '') {
    if (!isSupportedLocale(localeParam)) {
      throw apiError('VALIDATION_ERROR', `The supplied locale: ${localeParam.slice(0, 40)} is not supported.`, {
        field: 'locale',
        instance: localeParam.slice(0, 40),
      });
    }
    return localeParam;
  }
  return localeFromAcceptLanguage(acceptLanguage) ?? DEFAULT_LOCALE;
}
