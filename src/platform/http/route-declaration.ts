import { isOperatorRole } from '../auth/operator.js';
import { businessUserScopes, isPartnerInterface, type PartnerRouteConfig } from '../auth/principal.js';

/**
 * The check every route's security declaration passes before the server starts
 * (docs/security.md "Declared on every route"): a route without one, or with one that cannot be
 * used, stops the start.
 */

/** Paths of the partner interfaces and the operator API: a route here must declare how it authenticates. */
const AUTHENTICATED_PREFIXES = ['/v3/', '/v1/', '/listing_management/', '/program/', '/programs/', '/admin/', '/portal/v1/', '/token/'];

/** Why a route's security declaration cannot be used, or undefined when it can. */
export function declarationProblem(
  url: string,
  config: { partner?: PartnerRouteConfig; operator?: unknown; portal?: boolean } | undefined,
): string | undefined {
  const partner = config?.partner;
  const operator = config?.operator;
  if (config?.portal) return partner || operator !== undefined ? 'declares a portal guard beside another' : undefined;
  if (operator !== undefined && !isOperatorRole(operator)) return `names no known operator role (${JSON.stringify(operator)})`;
  if (operator !== undefined && !url.startsWith('/admin/')) return 'declares an operator role outside /admin/';
  if (!partner) {
    if (operator !== undefined) return undefined;
    if (url.startsWith('/admin/')) return 'declares no operator role (config.operator)';
    return AUTHENTICATED_PREFIXES.some((p) => url.startsWith(p) || `${url}/` === p)
      ? 'declares no authentication (config.partner, config.operator or config.portal)'
      : undefined;
  }
  if (operator !== undefined) return 'declares both a partner and an operator guard';
  const named: readonly unknown[] = Array.isArray(partner.interface) ? partner.interface : [partner.interface];
  if (named.length === 0 || !named.every((i) => typeof i === 'string' && isPartnerInterface(i)))
    return `names no known interface (${String(partner.interface)})`;
  if (partner.scheme !== 'bearer' && partner.scheme !== 'basic' && partner.scheme !== 'business_user')
    return `names no known scheme (${String(partner.scheme)})`;
  if ((partner.scheme === 'business_user') !== (partner.userScope !== undefined))
    return partner.scheme === 'business_user'
      ? 'names no userScope for its business_user scheme'
      : 'names a userScope without the business_user scheme';
  if (partner.userScope !== undefined && !businessUserScopes.some((scope) => scope === partner.userScope))
    return `names no known business user scope (${String(partner.userScope)})`;
  const scope: Partial<Record<string, unknown>> | undefined = partner.business;
  if (!scope || typeof scope !== 'object') return 'declares no business scope (config.partner.business)';
  const kinds = Object.keys(scope).filter((k) =>
    ['param', 'query', 'bodyList', 'paramList', 'queryList', 'deferred', 'unscoped'].includes(k),
  );
  if (kinds.length !== 1)
    return 'must declare exactly one business scope: param, query, bodyList, paramList, queryList, deferred or unscoped';
  const [kind] = kinds;
  const scopeName = scope[kind];
  if (typeof scopeName !== 'string' || scopeName.trim() === '') return `business scope ${kind} needs a non-empty text`;
  const inPath = url.split('/').includes(`:${scopeName}`);
  if (kind === 'param' && !inPath) return `has no path parameter :${scopeName}`;
  const max = scope.max;
  if (
    (kind === 'bodyList' || kind === 'paramList' || kind === 'queryList') &&
    !(typeof max === 'number' && Number.isInteger(max) && max > 0)
  )
    return `${kind} scope needs a positive max`;
  if (kind === 'paramList' && !inPath) return `has no path parameter :${scopeName}`;
  return undefined;
}
