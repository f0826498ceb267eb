/**
 * Operators: the people (and their scripts) who run pbs, each with a role (docs/security.md
 * "Operators and roles"). Every `/admin/v1` route declares the least role it needs in
 * `config.operator`; a role holds everything the roles before it hold.
 */
export const operatorRoles = ['viewer', 'support', 'partner_manager', 'admin'] as const;
export type OperatorRole = (typeof operatorRoles)[number];

/** What a role may do, in a few words (the console and the refusals say it). */
export const roleSummaries: Record<OperatorRole, string> = {
  viewer: 'reads everything, changes nothing, sees no secret',
  support: 'viewer, plus partner-facing actions that change no credential (redeliver, cancel for a restaurant, portal links)',
  partner_manager: 'support, plus partners, interfaces, credentials, links, rate limits, promotions and the business catalogue',
  admin: 'everything: operator accounts, imports, the clock, settings',
};

export function isOperatorRole(value: unknown): value is OperatorRole {
  return typeof value === 'string' && operatorRoles.some((role) => role === value);
}

/** Whether `have` holds everything `need` allows. */
export function roleAtLeast(have: OperatorRole, need: OperatorRole): boolean {
  return operatorRoles.indexOf(have) >= operatorRoles.indexOf(need);
}

/** The lower of two roles (a token never holds more than its owner). */
export function lowerRole(a: OperatorRole, b: OperatorRole): OperatorRole {
  return roleAtLeast(a, b) ? b : a;
}

/** Who made an operator request, as the guard established it. */
export interface Operator {
  /** `bootstrap`: the shared admin token (or a console session signed in with it); `cli`: a shell on the server. */
  via: 'bootstrap' | 'session' | 'token' | 'cli';
  /** The operator account; null for the bootstrap token. */
  accountId: string | null;
  /** The personal token's id, when `via` is `token`. */
  tokenId: string | null;
  /** How the audit trail and the console name them (the account's e-mail, or "bootstrap token"). */
  name: string;
  role: OperatorRole;
  /** A console session: when it ends (ms of wall time). */
  sessionEnds?: number;
}

/** Implemented by the team family: personal tokens and console sessions of operator accounts. */
export interface OperatorVerifier {
  /** The operator of a personal API token (`pbs_op_…`), if it is live and its account enabled. */
  verifyToken(token: string): Promise<Operator | undefined>;
  /** The operator of an account's console session cookie, if it is live and its account enabled. */
  verifySession(value: string): Promise<Operator | undefined>;
}

/** Personal operator tokens begin with this, so the guard knows where to look. */
export const OPERATOR_TOKEN_PREFIX = 'pbs_op_';

/** A shell on the server running `pbs`: trusted as the bootstrap token is, its changes recorded as the CLI's. */
export const CLI_OPERATOR: Operator = { via: 'cli', accountId: null, tokenId: null, name: 'pbs CLI', role: 'admin' };
