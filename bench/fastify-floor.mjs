// The framework's floor: Fastify 5 as pbs uses it (its router, reply and hooks machinery) with
// nothing of pbs, answering GET /bytes/N with a JSON body of N bytes prepared once, as
// bench/raw-server.mjs does. Beside a read path it says how much of the path's CPU per request
// the stack itself takes before pbs does anything (docs/benchmarks.md).
import Fastify from 'fastify';

const sized = new Map();
const app = Fastify({ logger: false });
app.get('/bytes/:size', (request, reply) => {
  const size = Math.min(Number(request.params.size) || 0, 99_999_999);
  let body = sized.get(size);
  if (!body) sized.set(size, (body = Buffer.from(JSON.stringify({ status: 'x'.repeat(Math.max(0, size - 14)) }))));
  reply.type('application/json; charset=utf-8').send(body);
});
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
