import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, dialects, openTestDatabase, startPbs, T0, type Harness, type TestDatabase } from '../support/harness.js';
import { eventually } from '../support/wait.js';

const HOUR = 3600_000;

/**
 * A sandbox clock move that answered 2xx is never lost: not to a periodic re-read that began
 * before it, not to a move in another server that had not re-read yet (issue 40 §2).
 */
describe.each(dialects)('moving the shared sandbox clock on %s', (dialect) => {
  let database: TestDatabase;
  let servers: Harness[];

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    // Two servers on one database, each re-reading the shared clock every few milliseconds, so
    // re-reads overlap the moves as often as the machine allows.
    const env = { PBS_CLOCK_SYNC_MS: '2', PBS_RATE_LIMIT_PER_SECOND: '1000000' };
    servers = [await startPbs(dialect, { database, env }), await startPbs(dialect, { database, env })];
  });
  afterAll(async () => {
    for (const s of servers ?? []) await s.close();
    await database?.drop();
  });

  const now = async (h: Harness) => Date.parse((await admin(h.url, 'GET', '/admin/v1/clock')).body.now);

  it('keeps every one of 400 one-hour advances sent back to back, alternating servers and four at a time', async () => {
    const start = await now(servers[0]);
    expect(start).toBe(T0); // frozen: the arithmetic below is exact
    let sent = 0;
    const chain = async (lane: number) => {
      for (let i = 0; i < 100; i++) {
        const server = servers[(lane + i) % 2];
        const moved = await admin(server.url, 'POST', '/admin/v1/clock/advance', { json: { hours: 1 } });
        expect(moved.status).toBe(200);
        sent++;
      }
    };
    await Promise.all([0, 1, 2, 3].map(chain));
    expect(sent).toBe(400);
    for (const server of servers)
      await eventually(
        () => now(server),
        (at) => at === start + 400 * HOUR,
        `server ${servers.indexOf(server)} at 400 hours on`,
      );
    // And it stays there: a re-read later restores nothing older.
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const server of servers) expect(await now(server)).toBe(start + 400 * HOUR);
  });

  it('keeps a set time and a freeze made on one server when the other advances right after', async () => {
    const target = T0 + 1000 * HOUR;
    for (let i = 0; i < 20; i++) {
      const at = target + i * 10 * HOUR;
      expect(
        (await admin(servers[0].url, 'PUT', '/admin/v1/clock', { json: { time: new Date(at).toISOString(), frozen: true } })).status,
      ).toBe(200);
      const advanced = await admin(servers[1].url, 'POST', '/admin/v1/clock/advance', { json: { hours: 1 } });
      expect(Date.parse(advanced.body.now)).toBe(at + HOUR);
    }
  });

  it('moves nothing when a move is refused', async () => {
    const before = await now(servers[1]); // the server that made the last move
    const refused = await admin(servers[1].url, 'PUT', '/admin/v1/clock', { json: { time: '9999-01-01T00:00:00Z' } });
    expect(refused.status).toBe(400);
    for (const server of servers)
      await eventually(
        () => now(server),
        (at) => at === before,
        'the clock where it was',
      );
  });
});
