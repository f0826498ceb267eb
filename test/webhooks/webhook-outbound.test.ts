import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OriginPools, post } from '../../src/webhooks/outbound.js';

describe('outbound webhook connections', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  /** A loopback receiver that counts the connections it accepts. */
  const receiver = async () => {
    let connections = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return { server, url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`), connections: () => connections };
  };

  /** POSTs `count` times, `concurrency` at once; returns how many failed (a dropped connection). */
  const send = async (pools: OriginPools, url: URL, count: number, concurrency: number) => {
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < count) {
          await post(pools.for(url.origin), url, {}, '{}', 5_000).then(
            (answer) => expect(answer.statusCode).toBe(200),
            () => failed++,
          );
        }
      }),
    );
    return failed;
  };

  it('keeps reusing a few connections after the receiver dropped them all under load', async () => {
    const r = await receiver();
    const pools = new OriginPools({ connections: 4 });
    closers.push(() => pools.close());
    expect(await send(pools, r.url, 40, 8)).toBe(0);
    expect(r.connections()).toBeLessThanOrEqual(4);
    // The receiver drops every connection while new POSTs are being dispatched (as when idle
    // sockets time out just as a backlog arrives; a POST caught on a dropped socket fails and
    // would be retried): the pool reconnects once, and stays.
    const sending = send(pools, r.url, 600, 8);
    r.server.closeIdleConnections();
    expect(await sending).toBeLessThanOrEqual(8);
    expect(r.connections()).toBeLessThanOrEqual(12);
    expect(pools.size).toBe(1);
  });

  it('closes a pool that has not been used for five minutes', async () => {
    const a = await receiver();
    const b = await receiver();
    let now = 0;
    const pools = new OriginPools({ connections: 2 }, () => now);
    closers.push(() => pools.close());
    await send(pools, a.url, 4, 2);
    now += 4 * 60_000;
    await send(pools, b.url, 4, 2);
    expect(pools.size).toBe(2);
    now += 2 * 60_000; // a: 6 minutes unused; b: 2
    await send(pools, b.url, 1, 1);
    expect(pools.size).toBe(1);
  });
});
