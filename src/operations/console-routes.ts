import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * Where the built console is: dist/console beside the compiled server (dist/operations/…), or,
 * when pbs runs from its TypeScript sources (npm run dev), the repository's dist/console.
 */
export function consoleDirectory(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [path.resolve(here, '../console'), path.resolve(here, '../../dist/console')].find((dir) =>
    fs.existsSync(path.join(dir, 'index.html')),
  );
}

/**
 * The operator console at /console: a static single-page app (console/, built by
 * `npm run build`) that signs in with the operator token and calls the operator API, so it needs
 * nothing of its own on the server. Its assets (/console/assets/, named by content hash) are
 * kept a year; the page itself is never cached, so a new build is seen at once.
 */
export function consoleRoutes(directory = consoleDirectory()) {
  return async (app: FastifyInstance) => {
    if (!directory) {
      app.get('/console/*', { schema: { hide: true } }, async (_request, reply) =>
        reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The operator console is not built: run `npm run build` (npm ci and npm start do).\n'),
      );
      return;
    }
    const headers = (res: { setHeader(name: string, value: string): unknown }) => {
      // The console loads only its own files and talks only to this server.
      res.setHeader(
        'content-security-policy',
        "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      );
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
    };
    await app.register(fastifyStatic, {
      root: path.join(directory, 'assets'),
      prefix: '/console/assets/',
      schemaHide: true,
      // Asset names carry a content hash: kept a year.
      maxAge: '365d',
      immutable: true,
      setHeaders: (res) => headers(res),
    });
    // The page itself (its URLs are absolute, so /console and /console/ both work).
    const page = fs.readFileSync(path.join(directory, 'index.html'));
    app.get('/console', { schema: { hide: true } }, async (_request, reply) => {
      headers(reply.raw);
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page);
    });
  };
}
