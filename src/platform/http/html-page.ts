import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Headers of pbs's server-made pages (a guest's reservation, the portal's sign-in): no framing,
 * no script at all, forms only to pbs itself, no Referer (their URLs carry a key), not cached.
 */
export const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** A browser opening a page asks for HTML; a program gets the catalogue's JSON errors. */
export function wantsPage(request: FastifyRequest): boolean {
  return /\btext\/html\b/.test(request.headers.accept ?? '');
}

/** Pages take small forms only. */
export const PAGE_BODY_LIMIT = 4096;

export const escapeHtml = (value: unknown) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * Sends a small page: `title` is escaped here, `body` must be HTML whose every value the caller
 * escaped. `accent` colours its buttons (a cancel is red); `referrerPolicy` replaces no-referrer
 * for a page whose form pbs checks the origin of (under no-referrer a browser sends `Origin: null`).
 */
export function htmlPage(
  reply: FastifyReply,
  status: number,
  title: string,
  body: string,
  {
    accent = '#1a5fb4',
    referrerPolicy,
    formTarget,
  }: {
    accent?: string;
    referrerPolicy?: 'same-origin';
    /** An origin besides pbs's that a form's answer redirects to (browsers apply form-action to the redirect too). */
    formTarget?: string;
  } = {},
) {
  const headers: Record<string, string> = { ...PAGE_HEADERS };
  if (referrerPolicy) headers['referrer-policy'] = referrerPolicy;
  if (formTarget)
    headers['content-security-policy'] = PAGE_HEADERS['content-security-policy'].replace(
      "form-action 'self'",
      `form-action 'self' ${formTarget}`,
    );
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .headers(headers)
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}` +
        `dt{font-weight:600}dd{margin:0 0 .5rem}button{font:inherit;padding:.5rem 1rem;border:1px solid ${accent};background:#fff;color:${accent};border-radius:.4rem;cursor:pointer}` +
        `.note{padding:.75rem;border-radius:.4rem;background:#f3f3f3}label{display:block;margin:.5rem 0 .25rem}input,select{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}ul.one-click{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}</style></head><body>${body}</body></html>`,
    );
}
