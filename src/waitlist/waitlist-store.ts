import type { Selectable } from 'kysely';
import { forUpdateOn, type Dialect, type DbOrTx } from '../platform/db/database.js';
import { ACTIVE_STATES, type Bucket, type VisitState, type WaitlistRestaurantsTable, type WaitlistVisitsTable } from './waitlist-tables.js';
import './waitlist-tables.js';

export type WaitlistRestaurant = Selectable<WaitlistRestaurantsTable>;
export type Visit = Selectable<WaitlistVisitsTable>;

/** SQL of waitlists and visits. */
export class WaitlistStore {
  constructor(
    private readonly db: DbOrTx,
    private readonly dialect: Dialect,
  ) {}

  restaurant(businessId: string) {
    return this.db.selectFrom('waitlist_restaurants').selectAll().where('business_id', '=', businessId).executeTakeFirst();
  }

  /** The restaurant's row, created with `defaults` when absent. */
  async ensureRestaurant(defaults: WaitlistRestaurant): Promise<void> {
    await this.db
      .insertInto('waitlist_restaurants')
      .values(defaults)
      .onConflict((oc) => oc.column('business_id').doNothing())
      .execute();
  }

  /**
   * Takes the restaurant's next queue position and answers its row (created from `defaults` when
   * absent). On PostgreSQL the update locks the row, so joins of one restaurant take turns for
   * the rest of their transaction (SQLite has one writer).
   */
  async takePosition(defaults: WaitlistRestaurant): Promise<{ position: number; row: WaitlistRestaurant }> {
    const take = () =>
      this.db
        .updateTable('waitlist_restaurants')
        .set((eb) => ({ next_position: eb('next_position', '+', 1) }))
        .where('business_id', '=', defaults.business_id)
        .returningAll()
        .executeTakeFirst();
    let row = await take();
    if (!row) {
      await this.ensureRestaurant(defaults);
      row = (await take())!;
    }
    return { position: Number(row.next_position) - 1, row };
  }

  updateRestaurant(businessId: string, change: Partial<WaitlistRestaurant>) {
    return this.db.updateTable('waitlist_restaurants').set(change).where('business_id', '=', businessId).executeTakeFirst();
  }

  /** Restaurants whose line the pace may advance. */
  restaurantsWithActiveVisits() {
    return this.db
      .selectFrom('waitlist_restaurants')
      .selectAll()
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('waitlist_visits')
            .select('id')
            .whereRef('waitlist_visits.business_id', '=', 'waitlist_restaurants.business_id')
            .where('waitlist_visits.state', 'in', [...ACTIVE_STATES]),
        ),
      )
      .execute();
  }

  visit(id: string) {
    return this.db.selectFrom('waitlist_visits').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The visit, locked for the transaction on PostgreSQL. */
  lockVisit(id: string) {
    return forUpdateOn(this.db.selectFrom('waitlist_visits').selectAll().where('id', '=', id), this.dialect).executeTakeFirst();
  }

  visitByToken(partnerId: string, token: string) {
    return this.db
      .selectFrom('waitlist_visits')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .where('idempotency_token', '=', token)
      .executeTakeFirst();
  }

  /** Active visits of a phone, at any restaurant. */
  activeVisitsOfPhone(phone: string) {
    return this.db
      .selectFrom('waitlist_visits')
      .selectAll()
      .where('phone', '=', phone)
      .where('state', 'in', [...ACTIVE_STATES])
      .execute();
  }

  /** A restaurant's active visits, in line order (on-my-way visits, without a place, last). */
  activeVisits(businessId: string) {
    return this.db
      .selectFrom('waitlist_visits')
      .selectAll()
      .where('business_id', '=', businessId)
      .where('state', 'in', [...ACTIVE_STATES])
      .orderBy('position')
      .orderBy('queue_time')
      .execute();
  }

  /** How many parties wait in line, per bucket. */
  async waitingByBucket(businessId: string): Promise<Record<Bucket, number>> {
    const rows = await this.db
      .selectFrom('waitlist_visits')
      .select((eb) => ['bucket', eb.fn.countAll<number>().as('n')])
      .where('business_id', '=', businessId)
      .where('state', '=', 'WAITING')
      .groupBy('bucket')
      .execute();
    const out: Record<Bucket, number> = { '1-2': 0, '3-4': 0, '5-6': 0, '7+': 0 };
    for (const row of rows) out[row.bucket] = Number(row.n);
    return out;
  }

  /** Waiting parties of the bucket ahead of `position`. */
  async aheadOf(businessId: string, bucket: Bucket, position: number): Promise<number> {
    const row = await this.db
      .selectFrom('waitlist_visits')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', businessId)
      .where('state', '=', 'WAITING')
      .where('bucket', '=', bucket)
      .where('position', '<', position)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countActiveOnMyWay(businessId: string): Promise<number> {
    const row = await this.db
      .selectFrom('waitlist_visits')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', businessId)
      .where('state', '=', 'ON_MY_WAY')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Inserts a visit; false when a unique index refuses it (the phone already has an active visit
   * here, or the partner's idempotency token names another visit). DO NOTHING rather than an
   * error, so a PostgreSQL transaction stays usable.
   */
  async insertVisit(visit: Visit): Promise<boolean> {
    const result = await this.db
      .insertInto('waitlist_visits')
      .values(visit)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Moves a visit from one of `from` to `change.state`; false when it was no longer in one of them. */
  async moveVisit(id: string, from: readonly VisitState[], change: Partial<Visit>): Promise<boolean> {
    const result = await this.db
      .updateTable('waitlist_visits')
      .set(change)
      .where('id', '=', id)
      .where('state', 'in', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Forgets terminal visits last changed before `before`. */
  async purge(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('waitlist_visits')
      .where('state', 'not in', [...ACTIVE_STATES])
      .where('updated_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
