import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyContextConfig, FastifyInstance, FastifySchema } from 'fastify';
import { isRecord } from '../values.js';
import type { OpenApiTag } from '../module.js';
import { errorResponseSchema } from './server.js';

const error = (description: string) => ({ description, $ref: 'ErrorResponse#' });

/**
 * What the guards add to a route, written into its operation: the statuses authentication, links,
 * rate limits and Idempotency-Key can answer, and `x-pbs-partner` (interface, scheme and business
 * scope), which the every-operation test reads to know what to expect of each route.
 */
function documentGuards(schema: FastifySchema, config: FastifyContextConfig | undefined, method: string): FastifySchema {
  const partner = config?.partner;
  if (!partner && !config?.operator && !config?.portal) return schema;
  const response: Record<string, unknown> = { ...(isRecord(schema.response) ? schema.response : {}) };
  const add = (status: number, description: string) => {
    const existing = response[status];
    if (!(isRecord(existing) && existing.description)) response[status] = error(description);
  };
  const out: FastifySchema & Record<string, unknown> = { ...schema };
  if (config?.portal) {
    out['x-pbs-portal'] = true;
    add(401, 'TOKEN_MISSING or TOKEN_INVALID: no portal session, or one that has ended');
    if (method !== 'GET') add(403, 'AUTHORIZATION_ERROR: the change came from another origin than the portal');
  } else if (!partner) {
    out['x-pbs-operator-role'] = config?.operator;
    add(401, 'TOKEN_MISSING or TOKEN_INVALID: the operator token is missing or wrong');
    add(403, `AUTHORIZATION_ERROR: the operator's role is below ${config?.operator ?? 'the one this operation needs'}`);
  } else {
    const scope = partner.business;
    out['x-pbs-partner'] = { interface: partner.interface, scheme: partner.scheme, business: scope };
    add(
      401,
      'TOKEN_MISSING (no credentials), TOKEN_INVALID (unknown, revoked or expired credentials), UNAUTHORIZED_API_KEY (partner disabled' +
        (partner.scheme === 'business_user' ? ', or not a business user’s token with this scope)' : ')'),
    );
    add(
      403,
      'PARTNER_ENDPOINT_DISABLED (interface not enabled for this partner)' +
        ('param' in scope || 'query' in scope || 'bodyList' in scope || 'paramList' in scope
          ? ', AUTHORIZATION_ERROR (a business not linked to this partner)'
          : ''),
    );
    if ('param' in scope || 'query' in scope) add(404, 'BUSINESS_NOT_FOUND');
    add(429, 'TOO_MANY_REQUESTS_PER_SECOND (with Retry-After) or ACCESS_LIMIT_REACHED (daily budget)');
    if (method === 'POST' || method === 'DELETE') {
      add(409, 'IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still running');
      add(422, 'IDEMPOTENCY_KEY_REUSED: this Idempotency-Key came with another request');
    }
  }
  out.response = response;
  return out;
}

/** pbs's mark for /docs (top bar and favicon): the name on the console's red. */
const PBS_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40">' +
  '<rect width="40" height="40" rx="8" fill="#d32323"/>' +
  '<text x="20" y="27" font-family="system-ui,sans-serif" font-size="18" font-weight="700" fill="#fff" text-anchor="middle">pbs</text>' +
  '<text x="48" y="26" font-family="system-ui,sans-serif" font-size="15" fill="#fff">API docs</text></svg>';
/**
 * pbs's colours, and what Swagger UI's own page gets wrong for accessibility (axe, WCAG AA), set
 * right: method badges and muted texts dark enough to read, no unnamed dark-mode toggle, no
 * one-entry server picker, the logo as a named link.
 */
const DOCS_CSS = [
  '.swagger-ui .topbar { background: #1d2330; } .swagger-ui .topbar .download-url-wrapper { display: none; }',
  '.swagger-ui .topbar-wrapper img { height: 40px; }',
  '.dark-mode-toggle, .swagger-ui .servers-title, .swagger-ui .servers { display: none !important; }',
  '.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f5f99 !important; }',
  '.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1d6b47 !important; }',
  '.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00 !important; }',
  '.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #a61f1f !important; }',
  '.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #3f5f14 !important; }',
  '.swagger-ui .info .title small, .swagger-ui .info .title small pre, .swagger-ui .version-stamp { background: #4a5568 !important; }',
  '.swagger-ui .info .url, .swagger-ui .info a { color: #1f5f99; }',
  '.swagger-ui .btn.authorize { color: #1d6b47; border-color: #1d6b47; } .swagger-ui .btn.authorize svg { fill: #1d6b47; }',
  '.swagger-ui .parameter__in, .swagger-ui .parameter__deprecated, .swagger-ui .prop-format { color: #595959; }',
  '.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4a5568; }',
].join('\n');

/**
 * What CSS cannot do: name the logo image and the selects Swagger UI renders without a label
 * (an enum parameter's values), each time it renders them.
 */
const DOCS_JS = `(() => {
  const name = () => {
    for (const img of document.querySelectorAll('.topbar-wrapper img:not([alt])')) img.setAttribute('alt', 'pbs API docs');
    for (const select of document.querySelectorAll('.swagger-ui select:not([aria-label])')) {
      const row = select.closest('tr[data-param-name]');
      select.setAttribute('aria-label', row ? row.getAttribute('data-param-name') : 'choose');
    }
  };
  new MutationObserver(name).observe(document.documentElement, { childList: true, subtree: true });
  name();
})();`;

/**
 * The OpenAPI 3.1 document is generated from the route schemas; register this before any route.
 * `/openapi.json` serves it and `/docs` renders it (assets are bundled: no CDN needed).
 */
export async function registerOpenApi(app: FastifyInstance, info: { version: string; tags: OpenApiTag[] }): Promise<void> {
  app.addSchema(errorResponseSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'pbs — Partner Business Services',
        version: info.version,
        description:
          'The partner interfaces of a local-business platform, in the order of its specification: reservations, ' +
          'advertising, waitlist, private reviews, engagement metrics, business subscriptions with listing management, ' +
          'and webhooks (sent to your endpoint; see the portal). Each tag below names the credentials it takes. ' +
          'Errors always have the form {"error": {"code", "description"}}. Your own requests, errors, webhooks and ' +
          'faults: the partner portal at /portal. The operator API (tag operator) comes last.',
      },
      // Relative, so "Try it out" calls whichever host served the page.
      servers: [{ url: '/', description: 'this pbs' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Partner API key or OAuth access token' },
          basicAuth: { type: 'http', scheme: 'basic', description: 'Data-ingestion credentials (username:password)' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Operator admin token' },
          businessUserOAuth: {
            type: 'oauth2',
            description: 'A business user’s access token: they authorize the partner’s app at /oauth2/authorize (docs/owners.md)',
            flows: {
              authorizationCode: {
                authorizationUrl: '/oauth2/authorize',
                tokenUrl: '/oauth2/token/v3',
                refreshUrl: '/oauth2/token/v3',
                scopes: { leads: 'Read leads and their conversations, and reply to them' },
              },
            },
          },
          portalSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'pbs_portal',
            description: 'A partner portal session, from a portal link the operator issues (docs/request-log.md "Portal")',
          },
        },
      },
      // The families' tags first (partners read the document), then the platform's.
      tags: [
        ...info.tags,
        { name: 'operator', description: 'Operator API: partners, credentials, businesses, clock, background tasks' },
        { name: 'system', description: 'Health, readiness and metrics' },
      ],
    },
    transform: ({ schema, url, route }) => {
      // Typed parameters for the document where the route's own schemas leave checks to the
      // service (which answers the spec's codes, not the validator's): see `config.docs`.
      const docs = route.config?.docs;
      const documented: FastifySchema = docs ? { ...schema, ...docs } : schema;
      return { schema: documentGuards(documented, route.config, String(route.method)), url };
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No deep links: Swagger UI makes each operation's path a link inside its toggle button (a
    // focusable control inside another, which screen readers cannot reach).
    uiConfig: { docExpansion: 'list', deepLinking: false },
    logo: { type: 'image/svg+xml', content: Buffer.from(PBS_LOGO), href: '/docs', target: '_self' },
    theme: {
      title: 'pbs API — Partner Business Services',
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(PBS_LOGO) }],
      // pbs's colours, and no "Explore" box (this page documents this server only).
      css: [{ filename: 'pbs.css', content: DOCS_CSS }],
      js: [{ filename: 'pbs.js', content: DOCS_JS }],
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
