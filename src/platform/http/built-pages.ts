import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The pages pbs serves (console/, built by `npm run build` into dist/console): the operator
 * console at /console and the partner portal at /portal, static single-page apps over pbs's own
 * API, sharing their assets. Where they are: dist/console beside the compiled server
 * (dist/platform/http/…), or, when pbs runs from its TypeScript sources (npm run dev), the
 * repository's dist/console.
 */
export function builtPagesDirectory(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [path.resolve(here, '../../console'), path.resolve(here, '../../../dist/console')].find((dir) =>
    fs.existsSync(path.join(dir, 'index.html')),
  );
}

/** The pages load only their own files and talk only to this server. */
function pageHeaders(res: { setHeader(name: string, value: string): unknown }) {
  res.setHeader(
    'content-security-policy',
    "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  );
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
}

/**
 * The pages' assets at /console/assets/: named by content hash, so kept a year. Without a build
 * the pages answer 503 saying how to build them.
 */
export function builtAssetsRoutes(directory = builtPagesDirectory()) {
  return async (app: FastifyInstance) => {
    if (!directory) return;
    await app.register(fastifyStatic, {
      root: path.join(directory, 'assets'),
      prefix: '/console/assets/',
      schemaHide: true,
      maxAge: '365d',
      immutable: true,
      setHeaders: (res) => pageHeaders(res),
    });
  };
}

/** One built page (`file` of the build) at `url`: never cached, so a new build is seen at once. */
export function builtPageRoute(url: string, file: string, directory = builtPagesDirectory()) {
  return async (app: FastifyInstance) => {
    const page = directory && fs.existsSync(path.join(directory, file)) ? fs.readFileSync(path.join(directory, file)) : undefined;
    app.get(url, { schema: { hide: true } }, async (_request, reply) => {
      if (!page)
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('This page is not built: run `npm run build` (npm ci and npm start do).\n');
      pageHeaders(reply.raw);
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page);
    });
  };
}
