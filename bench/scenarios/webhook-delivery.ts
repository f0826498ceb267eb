/** Webhook delivery of a backlog, and event → POST latency (a scenario of `npm run bench`, run by bench/run.ts). */
import path from 'node:path';
import { openDatabase } from '../../src/platform/db/database.js';
import { bareLoop, percentile, startReceiver, type WebhookFigures } from '../webhooks.js';
import { ADMIN, api, medianBy, PAIRS, type Started, startPbs, stop } from '../harness.js';

export const WEBHOOK_MESSAGES = Number(process.env.BENCH_WEBHOOK_MESSAGES ?? 5000);

/**
 * Webhook delivery: a backlog of `WEBHOOK_MESSAGES` drained by one delivering process, each drain
 * between two bare loops. The first drain is the process's first work (cold: the JIT still warming
 * up); then `PAIRS` warm rounds, reported as the round with the median ratio: the running process
 * is paused (SIGSTOP) while another process writes the backlog, then resumed, as a deliverer meets
 * a burst. Then event→POST latency at a steady rate on the same process.
 */
export async function webhookScenario(dataDir: string): Promise<WebhookFigures> {
  const receiver = await startReceiver();
  const dir = path.join(dataDir, 'webhooks');
  try {
    const sampleBody = JSON.stringify({
      time: new Date().toISOString(),
      object: 'business',
      data: {
        id: 'x'.repeat(22),
        updates: [
          { event_type: 'NEW_EVENT', event_id: 'e'.repeat(36), lead_id: 'l'.repeat(22), interaction_time: new Date().toISOString() },
        ],
      },
    });
    const setup = await startPbs(dir, { PBS_TASKS: '0' });
    const business = await api(
      setup.url,
      'POST',
      '/admin/v1/businesses',
      ADMIN,
      JSON.stringify({ name: 'Hooked', location: { city: 'Bench City', state: 'CA', country: 'US' }, timezone: 'America/Los_Angeles' }),
    );
    const partner = await api(setup.url, 'POST', '/admin/v1/partners', ADMIN, JSON.stringify({ name: 'Hooks', interfaces: ['webhooks'] }));
    const key = (await api(setup.url, 'POST', `/admin/v1/partners/${partner.id}/credentials`, ADMIN, JSON.stringify({ kind: 'api_key' })))
      .api_key;
    await api(
      setup.url,
      'PUT',
      `/admin/v1/partners/${partner.id}/webhook`,
      ADMIN,
      JSON.stringify({ url: receiver.url, client_id: 'bench' }),
    );
    await api(setup.url, 'POST', `/admin/v1/partners/${partner.id}/webhook/verify`, ADMIN);
    await api(setup.url, 'PUT', `/admin/v1/partners/${partner.id}/businesses/${business.id}`, ADMIN);
    await api(setup.url, 'POST', '/v3/webhooks/whitelists/businesses/add', key, JSON.stringify({ business_ids: [business.id] }));
    await stop(setup);

    /** A backlog written by a process that does not deliver, while `deliverer` is paused or not yet started. */
    const writeBacklog = async () => {
      const writer = await startPbs(dir, { PBS_TASKS: '0' });
      let next = 0;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (next++ < WEBHOOK_MESSAGES) await api(writer.url, 'POST', `/admin/v1/businesses/${business.id}/events/leads`, ADMIN, '{}');
        }),
      );
      await stop(writer);
    };
    let drainConnections = 0;
    /** One drain between two bare loops: throughput from the first to the last arrival. */
    const round = async (release: () => Promise<void>) => {
      const bareLoopBefore = await bareLoop(receiver.url, WEBHOOK_MESSAGES, 64, 8, sampleBody);
      receiver.arrivals.clear();
      const connectionsBefore = receiver.connections();
      await release();
      while (receiver.arrivals.size < WEBHOOK_MESSAGES) await new Promise((r) => setTimeout(r, 20));
      drainConnections += receiver.connections() - connectionsBefore;
      const times = [...receiver.arrivals.values()];
      const delivered = (WEBHOOK_MESSAGES - 1) / ((Math.max(...times) - Math.min(...times)) / 1000);
      const bareLoopAfter = await bareLoop(receiver.url, WEBHOOK_MESSAGES, 64, 8, sampleBody);
      return { bare: (bareLoopBefore + bareLoopAfter) / 2, delivered };
    };

    let deliverer: Started | undefined;
    try {
      await writeBacklog();
      const cold = await round(async () => {
        deliverer = await startPbs(dir);
      });
      const rounds: Array<{ bare: number; delivered: number }> = [];
      for (let i = 0; i < PAIRS; i++) {
        deliverer!.child.kill('SIGSTOP');
        await writeBacklog();
        rounds.push(await round(async () => void deliverer!.child.kill('SIGCONT')));
      }

      // Latency: 1,000 events at about 200 per second, from the emitting request's start to arrival.
      const sent = new Map<string, number>();
      for (let i = 0; i < 1000; i++) {
        const started = Date.now();
        const r = await api(deliverer!.url, 'POST', `/admin/v1/businesses/${business.id}/events/leads`, ADMIN, '{}');
        sent.set(r.message_id, started);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      while ([...sent.keys()].some((id) => !receiver.arrivals.has(id))) await new Promise((r) => setTimeout(r, 20));
      const latencies = [...sent.entries()].map(([id, at]) => receiver.arrivals.get(id)! - at);
      const database = await openDatabase({ sqlitePath: path.join(dir, 'pbs.sqlite') });
      const attempts = await database.db
        .selectFrom('webhook_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      await database.close();
      const ratio = (r: { bare: number; delivered: number }) => r.delivered / r.bare;
      const median = medianBy(rounds, ratio);
      return {
        bareLoopPerSecond: median.bare,
        deliveredPerSecond: median.delivered,
        roundRatios: rounds.map(ratio),
        coldBareLoopPerSecond: cold.bare,
        coldDeliveredPerSecond: cold.delivered,
        latencyP50: percentile(latencies, 50),
        latencyP99: percentile(latencies, 99),
        attemptsRecorded: Number(attempts.n),
        postsReceived: receiver.posts() - 2 * (PAIRS + 1) * WEBHOOK_MESSAGES, // minus the bare loops'
        drainConnections,
      };
    } finally {
      if (deliverer) await stop(deliverer);
    }
  } finally {
    await receiver.close();
  }
}

export function webhookLines(w: WebhookFigures): string[] {
  return [
    `webhook delivery (SQLite, backlogs of ${WEBHOOK_MESSAGES.toLocaleString('en-US')} messages to a loopback receiver, 8 connections, 64 in flight; a running deliverer: the median of ${w.roundRatios.length} rounds: ${w.roundRatios.map((r) => `${(r * 100).toFixed(1)} %`).join(', ')}):`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| bare undici POST loop (mean of runs before and after the drain) | ${Math.round(w.bareLoopPerSecond).toLocaleString('en-US')} msg/s |`,
    `| pbs delivery of a backlog by a running deliverer | ${Math.round(w.deliveredPerSecond).toLocaleString('en-US')} msg/s (${((w.deliveredPerSecond / w.bareLoopPerSecond) * 100).toFixed(1)} % of the bare loop) |`,
    `| the same by a just-started deliverer (its first work) | ${Math.round(w.coldDeliveredPerSecond).toLocaleString('en-US')} msg/s (${((w.coldDeliveredPerSecond / w.coldBareLoopPerSecond) * 100).toFixed(1)} % of ${Math.round(w.coldBareLoopPerSecond).toLocaleString('en-US')}) |`,
    `| connections the deliverer opened over the ${w.roundRatios.length + 1} drains | ${w.drainConnections.toLocaleString('en-US')} |`,
    `| event → POST latency at ~200 events/s | p50 ${w.latencyP50} ms, p99 ${w.latencyP99} ms |`,
    `| attempts recorded / POSTs received | ${w.attemptsRecorded.toLocaleString('en-US')} / ${w.postsReceived.toLocaleString('en-US')} |`,
  ];
}
