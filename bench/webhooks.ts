/**
 * Webhook delivery benchmark (part of `npm run bench`): delivery throughput and event→POST
 * latency of pbs, beside a bare undici POST loop to the same loopback receiver in the same run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

export interface WebhookFigures {
  bareLoopPerSecond: number;
  deliveredPerSecond: number;
  /** Delivered / bare loop, each warm round. */
  roundRatios: number[];
  /** The first drain, by a just-started process. */
  coldBareLoopPerSecond: number;
  coldDeliveredPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  attemptsRecorded: number;
  postsReceived: number;
  /** Connections the receiver accepted while pbs drained (the deliverer's). */
  drainConnections: number;
}

/** A receiver that answers 200 at once and notes when each message id arrived. */
export async function startReceiver() {
  const arrivals = new Map<string, number>();
  let posts = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const token = new URL(req.url ?? '/', 'http://x').searchParams.get('verification');
      if (req.method === 'GET' && token) return void res.end(JSON.stringify({ verification: token }));
      posts++;
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, Date.now());
      res.writeHead(200).end();
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    posts: () => posts,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The ceiling: POSTs of a same-sized body over a keep-alive agent with pbs's connection cap. */
export async function bareLoop(url: string, count: number, concurrency: number, connections: number, body: string): Promise<number> {
  const agent = new Agent({ connections, keepAliveTimeout: 30_000 });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const r = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'webhook-id': `bare-${next}` },
          body,
        });
        await r.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return count / seconds;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
