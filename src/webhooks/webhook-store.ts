import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { DbOrTx } from '../platform/db/database.js';
import type { DeliveryStatus, WebhookDeliveriesTable, WebhookEndpointsTable, WebhookMessagesTable } from './webhook-tables.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

/** The columns a delivery starts over with (a redelivery): pending now, a fresh window, unlocked. */
const startOver = (now: number, giveUpAt: number) => ({
  status: 'pending' as const,
  next_attempt_at: now,
  give_up_at: giveUpAt,
  finished_at: null,
  locked_by: null,
  locked_until: null,
});

/**
 * The SQL of webhook endpoints, messages and the operator's view of deliveries. What the
 * deliverer claims and records is delivery-store.ts.
 */
export class WebhookStore {
  constructor(private readonly db: DbOrTx) {}

  endpoint(partnerId: string): Promise<EndpointRow | undefined> {
    return this.db.selectFrom('webhook_endpoints').selectAll().where('partner_id', '=', partnerId).executeTakeFirst();
  }

  async insertEndpoint(row: Insertable<WebhookEndpointsTable>): Promise<void> {
    await this.db.insertInto('webhook_endpoints').values(row).execute();
  }

  async updateEndpoint(partnerId: string, change: Updateable<WebhookEndpointsTable>): Promise<void> {
    await this.db.updateTable('webhook_endpoints').set(change).where('partner_id', '=', partnerId).execute();
  }

  /** False when the partner had no endpoint. */
  async deleteEndpoint(partnerId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('webhook_endpoints').where('partner_id', '=', partnerId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The verified endpoints of these partners, with the event types each receives. */
  verifiedEndpointsOf(partnerIds: string[]): Promise<Array<Pick<EndpointRow, 'partner_id' | 'event_types' | 'duplicate_and_reorder'>>> {
    if (partnerIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('webhook_endpoints')
      .select(['partner_id', 'event_types', 'duplicate_and_reorder'])
      .where('partner_id', 'in', partnerIds)
      .where('status', '=', 'verified')
      .execute();
  }

  /** A message and its deliveries, written by the relay in its transaction. */
  async insertMessage(message: Insertable<WebhookMessagesTable>, deliveries: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
    await this.db.insertInto('webhook_messages').values(message).execute();
    if (deliveries.length > 0) await this.db.insertInto('webhook_deliveries').values(deliveries).execute();
  }

  /** The newest deliveries (optionally of one partner, in one state), with their message's type and business and every attempt. */
  async deliveries(filter: {
    partnerId?: string;
    status?: DeliveryStatus;
    eventType?: string;
    messageIds?: string[];
    ids?: string[];
    limit: number;
  }) {
    let q = this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_messages as m', 'm.id', 'd.message_id')
      .select([
        'd.id',
        'd.message_id',
        'd.partner_id',
        'd.status',
        'd.attempts',
        'd.next_attempt_at',
        'd.give_up_at',
        'd.last_status_code',
        'd.last_error',
        'd.created_at',
        'd.finished_at',
        'm.event_type',
        'm.business_id',
      ]);
    if (filter.partnerId) q = q.where('d.partner_id', '=', filter.partnerId);
    if (filter.status) q = q.where('d.status', '=', filter.status);
    if (filter.messageIds) q = q.where('d.message_id', 'in', filter.messageIds);
    if (filter.ids) q = q.where('d.id', 'in', filter.ids);
    if (filter.eventType) q = q.where('m.event_type', '=', filter.eventType);
    const rows = await q.orderBy('d.created_at', 'desc').orderBy('d.id').limit(filter.limit).execute();
    const attempts = rows.length
      ? await this.db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where(
            'delivery_id',
            'in',
            rows.map((r) => r.id),
          )
          .orderBy('attempted_at')
          .execute()
      : [];
    return { rows, attempts };
  }

  /** A message by its id (`webhook-id`), with how many deliveries it has. */
  async messageSummary(id: string) {
    const message = await this.db
      .selectFrom('webhook_messages')
      .select(['id', 'event_type', 'business_id'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!message) return undefined;
    const count = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('message_id', '=', id)
      .executeTakeFirstOrThrow();
    return { ...message, deliveries: Number(count.n) };
  }

  /** A message's body as it is sent (JSON text). */
  async messageBody(messageId: string): Promise<string | undefined> {
    return (await this.db.selectFrom('webhook_messages').select('body').where('id', '=', messageId).executeTakeFirst())?.body;
  }

  /** Attempts per minute since `from` (ms): answered 2xx, or not. */
  async attemptsPerMinute(from: number): Promise<Array<{ minute: number; succeeded: number; failed: number }>> {
    const minute = sql<number>`attempted_at / 60000`;
    const rows = await this.db
      .selectFrom('webhook_attempts')
      .select([
        minute.as('minute'),
        sql<number>`sum(case when status_code between 200 and 299 then 1 else 0 end)`.as('succeeded'),
        sql<number>`sum(case when status_code between 200 and 299 then 0 else 1 end)`.as('failed'),
      ])
      .where('attempted_at', '>=', from)
      .groupBy(minute)
      .execute();
    return rows.map((r) => ({ minute: Number(r.minute), succeeded: Number(r.succeeded ?? 0), failed: Number(r.failed ?? 0) }));
  }

  /** Starts a finished delivery over: 'redelivered', 'pending' (still under way), or 'unknown'. */
  /** Starts a delivery over (of `partnerId` only, when given: another partner's reads as unknown). */
  async redeliver(deliveryId: string, now: number, giveUpAt: number, partnerId?: string): Promise<'redelivered' | 'pending' | 'unknown'> {
    let update = this.db
      .updateTable('webhook_deliveries')
      .set(startOver(now, giveUpAt))
      .where('id', '=', deliveryId)
      .where('status', '!=', 'pending');
    if (partnerId !== undefined) update = update.where('partner_id', '=', partnerId);
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) return 'redelivered';
    let found = this.db.selectFrom('webhook_deliveries').select('id').where('id', '=', deliveryId);
    if (partnerId !== undefined) found = found.where('partner_id', '=', partnerId);
    const exists = await found.executeTakeFirst();
    return exists ? 'pending' : 'unknown';
  }

  /** Starts over every failed delivery created in [from, to) (optionally of one partner); how many. */
  async redeliverFailed(from: number, to: number, partnerId: string | undefined, now: number, giveUpAt: number): Promise<number> {
    let q = this.db
      .updateTable('webhook_deliveries')
      .set(startOver(now, giveUpAt))
      .where('status', '=', 'failed')
      .where('created_at', '>=', from)
      .where('created_at', '<', to);
    if (partnerId) q = q.where('partner_id', '=', partnerId);
    const result = await q.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
