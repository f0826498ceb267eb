import type { FastifyRequest } from 'fastify';
import { apiError } from '../errors.js';
import { BoundedMap } from '../bounded-map.js';
import { grantedInterface, type CredentialVerifier, type PartnerRouteConfig, type Principal } from '../auth/principal.js';
import { cookieValue } from './portal-session.js';
import { OPERATOR_COOKIE } from './operator-session.js';
import { cookieChangeRefusal } from './same-origin.js';
import { OPERATOR_TOKEN_PREFIX, roleAtLeast, type Operator, type OperatorRole, type OperatorVerifier } from '../auth/operator.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const BASIC = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i;

/**
 * `user:password` from an `Authorization: Basic …` header, or undefined when it is not one. Control
 * characters (NUL above all, which PostgreSQL text cannot hold) make the credentials unusable.
 * `decode` applies to each part (RFC 6749 §2.3.1 form-encodes OAuth client credentials).
 */
export function decodeBasic(
  header: string | undefined,
  decode: (part: string) => string = (part) => part,
): { username: string; password: string } | undefined {
  const match = header ? BASIC.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const username = decode(decoded.slice(0, colon));
  const password = decode(decoded.slice(colon + 1));
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(username + password)) return undefined;
  return { username, password };
}

function basicChallenge(realm: string) {
  return { headers: { 'www-authenticate': `Basic realm="${realm}", charset="UTF-8"` } };
}

/**
 * Establishes the principal of a partner route, in the order of docs/contract/common.md §1.2:
 * missing → 401 TOKEN_MISSING, unknown/revoked → 401 TOKEN_INVALID, partner disabled →
 * 401 UNAUTHORIZED_API_KEY, interface not granted → 403 PARTNER_ENDPOINT_DISABLED.
 */
export async function authenticatePartner(
  request: FastifyRequest,
  route: PartnerRouteConfig,
  verifier: CredentialVerifier,
): Promise<Principal> {
  const header = request.headers.authorization;
  const challenge = route.scheme === 'basic' ? basicChallenge('pbs partner API') : {};
  if (!header || header.trim() === '') {
    throw apiError('TOKEN_MISSING', undefined, challenge);
  }
  let principal: Principal | null = null;
  if (route.scheme !== 'basic') {
    const match = BEARER.exec(header);
    if (!match) throw apiError('TOKEN_INVALID', 'The Authorization header must be "Bearer <API key or access token>".');
    principal = await verifier.verifyBearer(match[1]);
  } else {
    if (!BASIC.test(header)) throw apiError('TOKEN_INVALID', 'The Authorization header must use HTTP Basic authentication.', challenge);
    const credentials = decodeBasic(header);
    if (!credentials) throw apiError('TOKEN_INVALID', 'Malformed Basic credentials.', challenge);
    principal = await verifier.verifyBasic(credentials.username, credentials.password);
  }
  if (!principal) {
    throw apiError(
      'TOKEN_INVALID',
      route.scheme === 'basic' ? 'Authentication Error: the credentials are not valid.' : undefined,
      challenge,
    );
  }
  return admitted(request, principal, route);
}

/**
 * The same answer as `authenticatePartner` without a promise, when the verifier already knows
 * the bearer token (the common case: a partner calls again and again); undefined otherwise.
 */
export function authenticateKnown(request: FastifyRequest, route: PartnerRouteConfig, verifier: CredentialVerifier): Principal | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  let principal: Principal | undefined;
  if (route.scheme !== 'basic') {
    const match = verifier.knownBearer ? BEARER.exec(header) : null;
    principal = match ? verifier.knownBearer!(match[1]) : undefined;
  } else if (verifier.knownBasic) {
    const known = decodedBasic.get(header);
    const credentials = known ?? decodeBasic(header);
    principal = credentials ? verifier.knownBasic(credentials.username, credentials.password) : undefined;
    if (principal && !known && credentials) decodedBasic.set(header, credentials);
  }
  return principal ? admitted(request, principal, route) : undefined;
}

/**
 * Basic headers of credentials the verifier knew, as they were sent: a partner sends the same one
 * on every call, and decoding it (base64, three patterns) was a measurable share of a fast read
 * (docs/benchmarks.md). Only headers that named known credentials are kept, so strangers cannot
 * fill it; whether the credentials are still good is the verifier's to say on every request.
 */
const decodedBasic = new BoundedMap<string, { username: string; password: string }>(1024);

function admitted(request: FastifyRequest, principal: Principal, route: PartnerRouteConfig): Principal {
  // Known even when refused below: the request log names the partner of a refused call.
  request.identified = principal;
  if (!principal.partnerActive) {
    throw apiError('UNAUTHORIZED_API_KEY', 'This partner is disabled; its credentials cannot query any endpoint.');
  }
  const refusal = kindRefusal(principal, route);
  if (refusal) throw apiError('UNAUTHORIZED_API_KEY', refusal);
  if (grantedInterface(principal, route) === undefined) {
    const named =
      typeof route.interface === 'string' ? `the ${route.interface} interface` : `any of the ${route.interface.join(', ')} interfaces`;
    throw apiError(
      'PARTNER_ENDPOINT_DISABLED',
      `This client is not enabled for ${named}. Contact the platform operator to request access.`,
    );
  }
  return principal;
}

/**
 * Why this kind of credential cannot call the route (docs/owners.md "Tokens"): a business user's
 * token calls only the operations of its scopes, and those take nothing else.
 */
function kindRefusal(principal: Principal, route: PartnerRouteConfig): string | undefined {
  const user = principal.businessUser;
  if (route.scheme !== 'business_user')
    return user
      ? 'A business user’s access token reaches only the operations of the scopes it was granted (the Leads API); use the partner’s API key here.'
      : undefined;
  if (!user)
    return 'This operation takes a business user’s OAuth access token (authorization code flow), not an API key or a client-credentials token.';
  if (route.userScope && !user.scopes.includes(route.userScope))
    return `The business user did not grant the ${route.userScope} scope to this token; ask them to authorize again with scope=${route.userScope}.`;
  return undefined;
}

/** Console sessions signed in with the bootstrap token, as the operator guard checks them (see OperatorSessions). */
export interface OperatorSessionVerifier {
  /** When the session ends, if the cookie's value is a live one. */
  verify(value: string): Promise<number | undefined>;
}

/** What the operator guard checks credentials against. */
export interface OperatorAuthentication {
  /** Whether a token is the bootstrap admin token (see AdminToken); false once it is turned off. */
  bootstrapMatches: (token: string) => Promise<boolean>;
  bootstrapSessions?: OperatorSessionVerifier;
  /** Operator accounts' personal tokens and console sessions (the team family). */
  accounts?: OperatorVerifier;
  publicOrigin: string;
}

const BOOTSTRAP_NAME = 'bootstrap token';

/**
 * The operator of an `/admin/v1` request: a personal token (`pbs_op_…`) or the bootstrap token as
 * `Authorization: Bearer`, or a console session's cookie (a change with the cookie only from this
 * server's own pages). Who they are, not yet what they may do (`operatorRoleRefusal`).
 */
export async function authenticateOperator(request: FastifyRequest, auth: OperatorAuthentication): Promise<Operator> {
  const header = request.headers.authorization;
  const cookie = header ? undefined : cookieValue(request.headers.cookie, OPERATOR_COOKIE);
  if (cookie !== undefined && (auth.bootstrapSessions || auth.accounts)) {
    const refusal = cookieChangeRefusal(request, auth.publicOrigin);
    if (refusal) throw apiError('AUTHORIZATION_ERROR', `Console changes are accepted from the console’s own pages only: ${refusal}.`);
    const operator = cookie.startsWith('ops_')
      ? await auth.accounts?.verifySession(cookie)
      : await bootstrapSession(cookie, auth.bootstrapSessions);
    if (!operator) throw apiError('TOKEN_INVALID', 'The console session has ended; sign in again.');
    return operator;
  }
  if (!header) throw apiError('TOKEN_MISSING', 'The operator API needs "Authorization: Bearer <operator token>".');
  const match = BEARER.exec(header);
  if (match && match[1].startsWith(OPERATOR_TOKEN_PREFIX)) {
    const operator = await auth.accounts?.verifyToken(match[1]);
    if (operator) return operator;
  } else if (match && (await auth.bootstrapMatches(match[1]))) {
    return { via: 'bootstrap', accountId: null, tokenId: null, name: BOOTSTRAP_NAME, role: 'admin' };
  }
  throw apiError('TOKEN_INVALID', 'Invalid operator token (revoked, expired, or its account disabled).');
}

async function bootstrapSession(value: string, sessions: OperatorSessionVerifier | undefined): Promise<Operator | undefined> {
  const ends = sessions ? await sessions.verify(value) : undefined;
  return ends === undefined
    ? undefined
    : { via: 'bootstrap', accountId: null, tokenId: null, name: BOOTSTRAP_NAME, role: 'admin', sessionEnds: ends };
}

/** Why the operator may not call a route that needs `need`, or undefined when they may. */
export function operatorRoleRefusal(operator: Operator, need: OperatorRole): string | undefined {
  if (roleAtLeast(operator.role, need)) return undefined;
  return `This operation needs the ${need} role; ${operator.via === 'token' ? 'this token holds' : 'you have'} ${operator.role}.`;
}
