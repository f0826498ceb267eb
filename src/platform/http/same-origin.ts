import type { FastifyRequest } from 'fastify';

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether a request authenticated by a cookie may change something: a read always, a change only
 * from this server's own pages (`Origin` this server, or `Sec-Fetch-Site` same-origin or none).
 * Beside the cookies being SameSite=Strict, this refuses a change another site's page sends.
 */
export function cookieChangeAllowed(request: FastifyRequest): boolean {
  if (!CHANGES.has(request.method)) return true;
  const origin = request.headers.origin;
  const own = `${request.protocol}://${request.headers.host ?? ''}`;
  const site = request.headers['sec-fetch-site'];
  return (origin === undefined || origin === own) && (site === undefined || site === 'same-origin' || site === 'none');
}
