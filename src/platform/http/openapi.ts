import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { errorResponseSchema } from './server.js';

/**
 * The OpenAPI 3.1 document is generated from the route schemas; register this before any route.
 * `/openapi.json` serves it and `/docs` renders it (assets are bundled: no CDN needed).
 */
export async function registerOpenApi(app: FastifyInstance, info: { version: string }): Promise<void> {
  app.addSchema(errorResponseSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'pbs — Partner Business Services',
        version: info.version,
        description:
          'Partner interfaces of a local-business platform (reservations, advertising, waitlist, private reviews, ' +
          'engagement metrics, business subscriptions, listing management, webhooks) and the operator API. ' +
          'Errors always have the form {"error": {"code", "description"}}.',
      },
      // Relative, so "Try it out" calls whichever host served the page.
      servers: [{ url: '/', description: 'this pbs' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Partner API key or OAuth access token' },
          basicAuth: { type: 'http', scheme: 'basic', description: 'Data-ingestion credentials (username:password)' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Operator admin token' },
        },
      },
      tags: [
        { name: 'operator', description: 'Operator API: partners, credentials, businesses, clock, jobs' },
        { name: 'oauth', description: 'Access tokens for partner clients' },
        { name: 'reservations', description: 'Reservation partner API (Bearer API key)' },
        { name: 'waitlist', description: 'Waitlist partner API' },
        { name: 'subscriptions', description: 'Business subscriptions, the replaced webhook allow-list, deprecated listing management' },
        { name: 'system', description: 'Health, readiness and metrics' },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
