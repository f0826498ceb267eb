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
] as const;

export type PartnerInterface = (typeof partnerInterfaces)[number];

export function isPartnerInterface(value: string): value is PartnerInterface {
  return (partnerInterfaces as readonly string[]).includes(value);
}

/**
 * How a route authenticates (spec "Authentication", facts.md §0):
 * `bearer` takes an API key or an OAuth access token, `basic` the data-ingestion credentials.
 */
export type AuthScheme = 'bearer' | 'basic';

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
  credentialKind: 'api_key' | 'access_token' | 'basic';
  interfaces: Partial<Record<PartnerInterface, InterfaceGrant>>;
}

/** Implemented by the partners family; the platform only knows this shape. */
export interface CredentialVerifier {
  verifyBearer(token: string): Promise<Principal | null>;
  /** The principal of a bearer token verified recently (from memory, no waiting); undefined when not known. */
  knownBearer?(token: string): Principal | undefined;
  verifyBasic(username: string, password: string): Promise<Principal | null>;
}

/** Route option that makes a route a partner route. */
export interface PartnerRouteConfig {
  interface: PartnerInterface;
  scheme: AuthScheme;
  /** Overrides the default per-second limit for this route's interface (e.g. subscriptions: 5). */
  defaultPerSecond?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    partner?: PartnerRouteConfig;
    /** Operator API route: requires the admin token. */
    admin?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}
