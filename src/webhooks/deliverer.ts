import os from 'node:os';
import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Database, Tx } from '../platform/db/database.js';
import { randomBase62 } from '../platform/ids.js';
import { guardedLookup, parseWebhookUrl, type AddressPolicy } from './address-guard.js';
import { DeliverySlots } from './delivery-slots.js';
import { DeliveryStore, type AttemptRecord, type Delivery, type Endpoint } from './delivery-store.js';
import { describeRequestFailure, OriginPools, post } from './outbound.js';
import { sign } from './signing.js';
import { BoundedMap } from '../platform/bounded-map.js';

/** An endpoint address as parsed and checked (host names are checked again at every connection). */
type UrlCheck = { refused: string; target?: undefined } | { refused: undefined; target: URL };

/** How long attempt records wait for others to share their commit. */
const RECORD_LINGER_MS = 2;

interface Outcome extends AttemptRecord {
  retryAfterMs: number | null;
}

function retryAfterMs(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * Sends webhook deliveries: claims due ones from the database (FOR UPDATE SKIP LOCKED on
 * PostgreSQL, so several processes share the work without sending an attempt twice), POSTs them
 * signed (Standard Webhooks), records every attempt, and schedules retries with backoff and
 * jitter until 24 hours after the event. A keep-alive pool per origin limits its connections, and
 * the slots of this process are shared so that no partner's slow or dead receiver delays another's
 * (DeliverySlots).
 */
export class WebhookDeliverer {
  private readonly workerId = `${os.hostname()}:${process.pid}:${randomBase62(6)}`;
  private readonly pools: OriginPools;
  private readonly store: DeliveryStore;
  /** Deliveries claimed and not yet answered (their records may still be committing), by partner. */
  private readonly slots: DeliverySlots;
  private readonly provenCap: number;
  private readonly urlChecks = new BoundedMap<string, UrlCheck>(1_000);
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  private unsubscribe: (() => void) | undefined;
  private readonly writes: Array<{ fn: (trx: Tx) => Promise<void>; resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;
  /**
   * False after a claim came back short (nothing else was due) until something new may be due:
   * an external wake (new event, clock move, poll timer). Saves claims that would scan a busy
   * partner's backlog to find nothing.
   */
  private otherWorkMaybe = true;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly config: Config['webhooks'],
    private readonly policy: AddressPolicy,
    private readonly onAttempt: (outcome: 'delivered' | 'retry' | 'failed', latencyMs: number) => void = () => {},
  ) {
    this.store = new DeliveryStore(database.db, database.dialect, this.workerId);
    // A few per connection, so a proven partner's connections never wait for a claim, but at
    // most half the slots.
    this.provenCap = Math.max(1, Math.min(config.perEndpointConcurrency * 4, Math.floor(config.maxInFlight / 2)));
    this.slots = new DeliverySlots({
      maxInFlight: config.maxInFlight,
      provenCap: this.provenCap,
      failingBudget: Math.max(1, Math.floor(config.maxInFlight / 4)),
    });
    // Connections resolve and check the host themselves (guardedLookup): what is connected to is
    // what was checked, however DNS answers change after the endpoint was registered.
    this.pools = new OriginPools({
      connections: config.perEndpointConcurrency,
      keepAliveTimeout: 30_000,
      connect: { timeout: config.timeoutMs, lookup: guardedLookup(policy) },
    });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.clock.onChange(() => this.wake());
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    await this.pumping;
    await Promise.allSettled([...this.inFlight]);
    await this.flushing;
    await this.pools.close();
  }

  /** Something may be due (a new message, a moved clock, the poll timer). */
  wake(): void {
    this.otherWorkMaybe = true;
    this.pumpSoon();
  }

  private pumpSoon(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        this.pumpSoon();
      }
    });
  }

  /** Delivers everything due now, attempt by attempt, and waits (tests call this instead of sleeping). */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const { claimed, handedBack } = await this.claim(this.config.maxInFlight);
      if (claimed.length === 0 && handedBack === 0) {
        await Promise.allSettled([...this.inFlight]);
        if (this.inFlight.size === 0) return total;
        continue;
      }
      total += claimed.length;
      const endpoints = await this.load(claimed);
      await Promise.all(claimed.map((d) => this.track(d, endpoints)));
    }
  }

  private async pump(): Promise<void> {
    try {
      while (this.running) {
        const room = this.slots.room;
        // Claim in batches: a claim is a write, so not one per finished delivery.
        if (room < this.batch) return; // a finishing delivery wakes us
        if (!this.slots.busyWithRoom() && !this.otherWorkMaybe) break;
        const { claimed, short } = await this.claim(room);
        if (short) this.otherWorkMaybe = false;
        if (claimed.length > 0) {
          const endpoints = await this.load(claimed);
          for (const d of claimed) void this.track(d, endpoints);
        }
        if (short) break;
      }
    } catch {
      // The database may be briefly unavailable; the timer tries again.
    }
    if (this.running) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.wake(), this.config.pollMs);
      this.timer.unref();
    }
  }

  /**
   * Claims again only once this partner is down to half its cap: a claim while it is above
   * would skip it (scanning its whole backlog to find nothing). Other partners' new
   * work wakes the deliverer itself, and due retries are found by the poll timer.
   */
  private finished(partnerId: string): void {
    if (this.slots.underWayOf(partnerId) <= this.slots.capOf(partnerId) / 2) this.pumpSoon();
  }

  /** Deliveries a claim is worth making for: half a proven partner's cap. */
  private get batch(): number {
    return Math.max(1, Math.floor(this.provenCap / 2));
  }

  private track(d: Delivery, endpoints: Map<string, Endpoint>): Promise<void> {
    const p = this.deliver(d, endpoints).catch(() => {});
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  /**
   * Claims due deliveries with a lease of twice the timeout plus 5 s (wall time): ample for one
   * attempt, short enough that a crashed process's claims are taken over soon after. Takes the
   * slots at once, so the next claim sees them; what the slots do not admit (a new or failing
   * partner's second delivery) is handed back unsent, for a later claim.
   */
  private async claim(wanted: number): Promise<{ claimed: Delivery[]; handedBack: number; short: boolean }> {
    const now = this.clock.now();
    const wall = Date.now();
    const limit = this.slots.claimLimit(wanted);
    if (limit === 0) return { claimed: [], handedBack: 0, short: true };
    const lease = wall + 2 * this.config.timeoutMs + 5_000;
    const rows = await this.store.claim(limit, now, wall, lease, this.slots.excluded());
    const { admitted, handedBack } = this.slots.admit(rows);
    // Not handed back (the database failed): they wait for their lease to lapse.
    if (handedBack.length > 0) await this.store.handBack(handedBack).catch(() => {});
    return { claimed: admitted, handedBack: handedBack.length, short: rows.length < limit };
  }

  /** The endpoints of a claimed batch's partners (nearly always one), read once per batch. */
  private async load(claimed: Delivery[]): Promise<Map<string, Endpoint>> {
    try {
      const endpoints = new Map<string, Endpoint>();
      for (const d of claimed) {
        if (endpoints.has(d.partner_id)) continue;
        const endpoint = await this.store.endpointOf(d.partner_id);
        if (endpoint) endpoints.set(d.partner_id, endpoint);
      }
      return endpoints;
    } catch (error) {
      // Not delivered by us after all (the lease lapses and someone claims them again).
      for (const d of claimed) this.slots.release(d.partner_id);
      throw error;
    }
  }

  private async deliver(d: Delivery, endpoints: Map<string, Endpoint>): Promise<void> {
    const partner = d.partner_id;
    // The slot is freed when the POST is answered, not when its record commits: recording
    // shares a commit with other outcomes, and a crash before it only means a second send.
    let sent = false;
    const doneSending = () => {
      if (sent) return;
      sent = true;
      this.slots.release(partner);
      this.finished(partner);
    };
    try {
      const endpoint = endpoints.get(partner);
      const now = this.clock.now();
      if (d.body === null || !endpoint || endpoint.status !== 'verified') {
        const reason = d.body === null ? 'message is gone' : endpoint ? `endpoint is ${endpoint.status}` : 'no endpoint';
        await this.write((trx) => this.store.settle(trx, d, 'failed', null, reason, now));
        this.onAttempt('failed', 0);
        return;
      }
      const outcome = await this.send(endpoint, d.message_id, d.body, now);
      const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
      this.slots.noteOutcome(partner, ok);
      doneSending();
      const after = this.clock.now();
      if (ok) {
        await this.write(async (trx) => {
          await this.store.recordAttempt(trx, d, outcome, after);
          await this.store.settle(trx, d, 'delivered', outcome.statusCode, null, after);
        });
        this.onAttempt('delivered', outcome.latencyMs);
      } else if (outcome.statusCode === 410) {
        // Gone: stop sending to this endpoint until the operator registers it again.
        await this.write(async (trx) => {
          await this.store.recordAttempt(trx, d, outcome, after);
          await this.store.markGone(trx, partner, after);
          await this.store.settle(trx, d, 'failed', 410, 'endpoint answered 410 Gone', after);
        });
        this.onAttempt('failed', outcome.latencyMs);
      } else {
        const base = this.config.retryScheduleSeconds[Math.min(d.attempts - 1, this.config.retryScheduleSeconds.length - 1)] * 1000;
        const jittered = Math.round(base * (0.9 + Math.random() * 0.2));
        const next = after + Math.max(jittered, outcome.retryAfterMs ?? 0);
        const error = outcome.error ?? `HTTP ${outcome.statusCode}`;
        const givingUp = next > d.give_up_at;
        await this.write(async (trx) => {
          await this.store.recordAttempt(trx, d, outcome, after);
          if (givingUp)
            await this.store.settle(
              trx,
              d,
              'failed',
              outcome.statusCode,
              `gave up after ${this.config.retryWindowHours} hours: ${error}`,
              after,
            );
          else {
            await this.store.retryAt(trx, d, next, outcome.statusCode, error);
          }
        });
        this.onAttempt(givingUp ? 'failed' : 'retry', outcome.latencyMs);
      }
    } finally {
      doneSending();
    }
  }

  /**
   * An endpoint URL parsed and judged without the network (IP literals by the address policy);
   * host names are resolved and judged by every new connection (see the pools' lookup).
   */
  private checkUrl(url: string): UrlCheck {
    const hit = this.urlChecks.get(url);
    if (hit) return hit;
    const parsed = parseWebhookUrl(url, this.policy);
    const check: UrlCheck = 'refused' in parsed ? { refused: parsed.refused } : { refused: undefined, target: parsed.url };
    this.urlChecks.set(url, check);
    return check;
  }

  private async send(
    endpoint: { url: string; secret: string; previous_secret: string | null; previous_secret_until: number | null },
    messageId: string,
    body: string,
    now: number,
  ): Promise<Outcome> {
    const started = performance.now();
    const check = this.checkUrl(endpoint.url);
    if (check.refused !== undefined)
      return { statusCode: null, error: `url refused: ${check.refused}`, excerpt: null, retryAfterMs: null, latencyMs: 0 };
    // Real time, not the sandbox clock: receivers' verification libraries refuse a timestamp
    // more than five minutes from their own clock (docs/contract/webhooks.md §6.4). The
    // envelope's event `time` stays on the sandbox clock.
    const timestamp = Math.floor(Date.now() / 1000);
    const signatures = [sign(endpoint.secret, messageId, timestamp, body)];
    if (endpoint.previous_secret && endpoint.previous_secret_until !== null && endpoint.previous_secret_until > now) {
      signatures.push(sign(endpoint.previous_secret, messageId, timestamp, body));
    }
    try {
      const answer = await post(
        this.pools.for(check.target.origin),
        check.target,
        {
          'content-type': 'application/json',
          'user-agent': 'pbs-webhooks/1',
          'webhook-id': messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatures.join(' '),
        },
        body,
        // Connect, headers and body each within the timeout (undici's own timers: an abort
        // signal per request cost a measurable share of delivery throughput).
        this.config.timeoutMs,
      );
      return {
        statusCode: answer.statusCode,
        error: null,
        excerpt: answer.excerpt || null,
        retryAfterMs:
          answer.statusCode === 429 || answer.statusCode === 503 ? retryAfterMs(answer.headers['retry-after'], Date.now()) : null,
        latencyMs: performance.now() - started,
      };
    } catch (error) {
      return {
        statusCode: null,
        error: describeRequestFailure(error, this.config.timeoutMs),
        excerpt: null,
        retryAfterMs: null,
        latencyMs: performance.now() - started,
      };
    }
  }

  /**
   * Attempt records are committed in groups: every outcome that arrives within a couple of
   * milliseconds, or while a commit is under way, goes into the same commit, so a busy deliverer
   * pays one commit for many attempts. The caller waits until its write is durable.
   */
  private write(fn: (trx: Tx) => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.writes.push({ fn, resolve, reject });
      // Wait a moment for more outcomes to share the commit: slots are already free (see
      // deliver), so this costs no throughput; it took commits from ~4 to ~10 records each.
      this.flushing ??= new Promise<void>((started) => setTimeout(started, RECORD_LINGER_MS)).then(() => this.flush());
    });
  }

  private async flush(): Promise<void> {
    while (this.writes.length > 0) {
      const batch = this.writes.splice(0);
      try {
        await this.database.transact(async (trx) => {
          for (const w of batch) await w.fn(trx);
        });
        for (const w of batch) w.resolve();
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.flushing = undefined;
  }
}
