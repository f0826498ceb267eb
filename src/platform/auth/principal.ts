import type { Operator, OperatorRole } from './operator.js';
import { isOneOf } from '../query.js';
/** The partner interfaces an operator grants one by one (spec: disabled by default). */
export const partnerInterfaces = [
  'reservations',
  'advertising',
  'waitlist',
  'private_reviews',
  'engagement',
  'business_subscriptions',
  'webhooks',
  'listing_management',
  'leads',
] as const;

export type PartnerInterface = (typeof partnerInterfaces)[number];

export function isPartnerInterface(value: string): value is PartnerInterface {
  return isOneOf(partnerInterfaces, value);
}

/**
 * How a route authenticates (spec "Authentication", docs/contract/common.md §0):
 * `bearer` takes an API key or an OAuth access token, `basic` the data-ingestion credentials,
 * `business_user` a business user's OAuth access token (authorization code flow,
 * docs/owners.md) and nothing else.
 */
export type AuthScheme = 'bearer' | 'basic' | 'business_user';

/** The OAuth scopes a business user can grant a partner (docs/owners.md). */
export const businessUserScopes = ['leads'] as const;
export type BusinessUserScope = (typeof businessUserScopes)[number];

export interface InterfaceGrant {
  enabled: boolean;
  /** Per-partner overrides; undefined falls back to the configured defaults. */
  perSecond?: number | null;
  perDay?: number | null;
}

/** Who is calling, as established from their credentials. */
export interface Principal {
  partnerId: string;
  partnerName: string;
  partnerActive: boolean;
  credentialId: string;
  credentialKind: 'api_key' | 'access_token' | 'basic' | 'business_user_token';
  interfaces: Partial<Record<PartnerInterface, InterfaceGrant>>;
  /** For a business user's token: who authorized the partner, and for what. */
  businessUser?: { id: string; scopes: readonly string[] };
}

/** Implemented by the partners family; the platform only knows this shape. */
export interface CredentialVerifier {
  verifyBearer(token: string): Promise<Principal | null>;
  /** The principal of a bearer token verified recently (from memory, no waiting); undefined when not known. */
  knownBearer?(token: string): Principal | undefined;
  verifyBasic(username: string, password: string): Promise<Principal | null>;
  /** The principal of Basic credentials verified recently (from memory, no waiting); undefined when not known. */
  knownBasic?(username: string, password: string): Principal | undefined;
}

/**
 * Which businesses a partner route acts for, and so which partner ↔ business links it needs.
 * Every partner route states one; a route without it does not start (see installGuards).
 * - `param`: a path parameter names one business (id or alias): unknown → 404
 *   BUSINESS_NOT_FOUND, not linked to the caller → 403 AUTHORIZATION_ERROR.
 * - `query`: the same for a query-string (or form) parameter, when present; its absence is the
 *   route's to answer.
 * - `bodyList`: a JSON body field lists business ids (at most `max`): any id not linked to the
 *   caller (unknown ids included) → 403 AUTHORIZATION_ERROR, and the handler never runs.
 * - `paramList`: a path parameter lists business ids (or aliases), comma-separated, at most
 *   `max`: any not linked to the caller (unknown ones included) → 403 AUTHORIZATION_ERROR.
 * - `queryList`: a query parameter lists business ids (or aliases), comma-separated or repeated,
 *   1 to `max` of them (else 400 INVALID_REQUEST): an unknown one → 404 NOT_FOUND, one not linked
 *   to the caller → 403 AUTHORIZATION_ERROR; the handler gets the businesses in `businessIds`.
 * - `deferred`: the ids are checked later, one by one, by the background work named here.
 * - `unscoped`: the route acts for no particular linked business; the text says why.
 */
export type BusinessScope =
  | { param: string }
  | { query: string }
  | { bodyList: string; max: number }
  | { paramList: string; max: number }
  | { queryList: string; max: number }
  | { deferred: string }
  | { unscoped: string };

/** Route option that makes a route a partner route. */
export interface PartnerRouteConfig {
  /**
   * The interface the route belongs to; or several, any one of which admits the caller (the
   * public business lookups every partner needs), whose limits then count under the first of
   * them the partner holds.
   */
  interface: PartnerInterface | readonly PartnerInterface[];
  scheme: AuthScheme;
  /** With the `business_user` scheme: the scope the token must carry. */
  userScope?: BusinessUserScope;
  business: BusinessScope;
  /** Overrides the default per-second limit for this route's interface (e.g. subscriptions: 5). */
  defaultPerSecond?: number;
}

/** The interface of `route` that admits `principal` (the first granted), or undefined when none does. */
export function grantedInterface(principal: Principal, route: PartnerRouteConfig): PartnerInterface | undefined {
  // Called on every partner request: one interface (nearly every route) costs no array.
  if (typeof route.interface === 'string') return principal.interfaces[route.interface]?.enabled ? route.interface : undefined;
  return route.interface.find((name) => principal.interfaces[name]?.enabled);
}

/** What a link check found for some business ids or aliases. */
export interface LinkCheck {
  /** Each given id or alias that exists → its business id. */
  resolved: Map<string, string>;
  /** Given ids or aliases that name no business. */
  unknown: string[];
  /** Given ids or aliases of businesses not linked to the partner. */
  unlinked: string[];
}

/** Implemented by the partners family: which businesses a partner may act for. */
export interface BusinessLinks {
  check(partnerId: string, idsOrAliases: readonly string[]): Promise<LinkCheck>;
  /**
   * Without waiting, when every one of `idsOrAliases` was confirmed linked lately: their business
   * ids, in the order given (an id given twice, twice). Undefined when `check` must be awaited.
   * With `listText`, the comma list they were parsed from: its distinct ids are kept under it.
   */
  knownBusinessIds?(partnerId: string, idsOrAliases: readonly string[], listText?: string): string[] | undefined;
  /**
   * Without parsing: a list sent as `listText` lately and kept so, while all its links hold: its
   * distinct business ids, and how many ids or aliases the text named (a route's limit applies).
   */
  knownBusinessList?(partnerId: string, listText: string): { businessIds: readonly string[]; given: number } | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    partner?: PartnerRouteConfig;
    /**
     * Typed schemas of the route's parameters for the OpenAPI document only, where the route's own
     * schemas accept anything so that the service answers bad values with the spec's codes.
     */
    docs?: { querystring?: object; body?: object; params?: object };
    /** Operator API route: the least role it needs (docs/security.md "Operators and roles"). */
    operator?: OperatorRole;
    /** An operator read that may show a secret: it is in the audit trail when it does (`noteAudit({ revealed })`). */
    revealsSecret?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
    /** The operator of an `/admin/v1` request, once authenticated. */
    operator?: Operator;
    /** Whose credentials these are, set as soon as they verify, also when the request is then refused. */
    identified?: Principal;
    /** The business of a route scoped by `{ param }`, once its link is checked. */
    business?: { id: string };
    /** The businesses of a route scoped by `{ queryList }`, resolved, in the order given, once each. */
    businessIds?: readonly string[];
  }
}
