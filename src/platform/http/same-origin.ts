import type { FastifyRequest } from 'fastify';

/** Whether a session cookie must be `Secure`: the browser reaches pbs over HTTPS (itself, or through PBS_PUBLIC_URL). */
export function secureCookie(request: FastifyRequest, publicUrl: string): boolean {
  return request.protocol === 'https' || publicUrl.startsWith('https:');
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Why a request authenticated by a cookie may not change something (undefined when it may): a
 * read always may; a change only from pbs's own pages, beside the cookies being SameSite=Strict.
 * - Every current browser says where a request comes from in `Sec-Fetch-Site`: `same-origin`
 *   (pbs's own page) or `none` (typed, bookmarked) pass, anything else does not. It is judged by
 *   the browser, so a proxy in front of pbs (one that ends TLS, or rewrites `Host`) changes
 *   nothing about it.
 * - Without it (an older browser), `Origin`, when sent, must be an address of pbs: the one the
 *   request names (`Host`, and a proxy's `X-Forwarded-Host` and `-Proto`, which a page of another
 *   site cannot set on a form it sends) or `publicOrigin` (PBS_PUBLIC_URL's).
 * Programs other than browsers send neither and pass: they hold the cookie themselves.
 */
export function cookieChangeRefusal(request: FastifyRequest, publicOrigin: string): string | undefined {
  if (!CHANGES.has(request.method)) return undefined;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    if (site === 'same-origin' || site === 'none') return undefined;
    return `the browser says this change comes from a ${site} page, not one of pbs's own`;
  }
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  const own = ownOrigins(request, publicOrigin);
  if (own.includes(origin)) return undefined;
  return (
    `its Origin ${origin} is none of pbs's addresses (${own.join(', ')}); ` +
    'behind a proxy that changes the address, set PBS_PUBLIC_URL to the address browsers use'
  );
}

/** The origins a request may have come from if it came from pbs's own pages. */
function ownOrigins(request: FastifyRequest, publicOrigin: string): string[] {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(',')[0].trim();
  const host = request.headers.host ?? '';
  const forwardedHost = first(request.headers['x-forwarded-host']) ?? host;
  const forwardedProto = first(request.headers['x-forwarded-proto']);
  const origins = new Set([`${request.protocol}://${host}`, publicOrigin]);
  for (const scheme of [forwardedProto, 'https', 'http']) if (scheme) origins.add(`${scheme}://${forwardedHost}`);
  return [...origins];
}
