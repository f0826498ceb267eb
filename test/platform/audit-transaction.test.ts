import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  auditDraft,
  auditingTransact,
  auditScopesOpen,
  closeAudited,
  noteAudit,
  runAudited,
  type AuditDraft,
} from '../../src/platform/audit/audit-trail.js';
import { auditTrailMigration } from '../../src/platform/audit/audit-tables.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Database } from '../../src/platform/db/database.js';
import { dialects, openTestDatabase, type TestDatabase } from '../support/harness.js';

/**
 * ADR 0013: an operator change's record is written by the change's own transaction: with it or
 * not at all, once, in the right request's context, and never by work a request merely started.
 */
describe.each(dialects)('the audit record in the change’s transaction on %s', (dialect) => {
  let raw: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    raw = await openTestDatabase(dialect);
    await migrateToLatest(raw, [auditTrailMigration]);
    await sql`create table changes (id integer)`.execute(raw.db);
    database = { ...raw, transact: auditingTransact((work) => raw.transact(work)) };
  });
  afterAll(() => raw.drop());

  const operator = { via: 'bootstrap', accountId: null, tokenId: null, name: 'bootstrap token', role: 'admin' } as const;
  const draftFor = (action: string): AuditDraft =>
    auditDraft(
      operator,
      { ip: '127.0.0.1', method: 'POST', url: action, routeUrl: action, params: { partner_id: 'p1' }, body: { secret: 's3cret', n: 1 } },
      1_000.5,
    );
  const records = async (action: string) =>
    (await raw.db.selectFrom('operator_audit').selectAll().where('action', '=', `POST ${action}`).execute()).map((r) =>
      JSON.parse(r.details),
    );
  /** A scope as an operator request has it: open while it runs, closed once it has answered. */
  const audited = async (draft: AuditDraft, work: () => Promise<unknown>) => {
    try {
      await runAudited(draft, work);
    } finally {
      closeAudited(draft);
    }
  };
  const change = () => database.transact((trx) => sql`insert into changes (id) values (1)`.execute(trx));

  it('writes one record with the first transaction, with what the service noted, and no secret', async () => {
    await audited(draftFor('/one'), async () => {
      await database.transact(async (trx) => {
        noteAudit({ before: { limit: 1 }, after: { limit: 2, token: 'x' } });
        await sql`insert into changes (id) values (1)`.execute(trx);
      });
      await change();
    });
    const [only, ...more] = await records('/one');
    expect(more).toEqual([]);
    expect(only).toEqual({
      params: { partner_id: 'p1' },
      fields: { secret: '[secret]', n: 1 },
      before: { limit: 1 },
      after: { limit: 2, token: '[secret]' },
      recorded: 'with the change',
    });
  });

  it('writes none when the change rolls back, and writes it with the retry that commits', async () => {
    await audited(draftFor('/failed'), async () => {
      await expect(
        database.transact(async (trx) => {
          await sql`insert into changes (id) values (2)`.execute(trx);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await records('/failed')).toEqual([]);
      await change();
    });
    expect(await records('/failed')).toHaveLength(1);
  });

  it('writes nothing for work without a draft, or started by a request that has answered', async () => {
    await change();
    const draft = draftFor('/answered');
    let later: Promise<unknown> | undefined;
    await runAudited(draft, async () => {
      await change();
      // A background loop woken during the request keeps its context after the answer.
      later = new Promise((resolve) => setTimeout(resolve, 0)).then(change);
    });
    closeAudited(draft);
    await later;
    expect(await records('/answered')).toHaveLength(1);
    const fresh = draftFor('/closed-before-any-change');
    await runAudited(fresh, async () => {
      closeAudited(fresh);
      await change();
    });
    expect(await records('/closed-before-any-change')).toEqual([]);
  });

  it('turns the context off when the last scope closes, and on again for the next', async () => {
    const first = draftFor('/first');
    const second = draftFor('/second');
    let stale: Promise<unknown> | undefined;
    await runAudited(first, async () => {
      await runAudited(second, async () => {
        await change();
        stale = new Promise((resolve) => setTimeout(resolve, 0)).then(() => noteAudit({ after: { late: true } }));
      });
      closeAudited(second);
      expect(auditScopesOpen()).toBe(1);
      await change();
    });
    closeAudited(first);
    expect(auditScopesOpen()).toBe(0);
    await stale;
    const third = draftFor('/third');
    await audited(third, async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      noteAudit({ after: { limit: 3 } });
      await change();
    });
    expect(auditScopesOpen()).toBe(0);
    expect((await records('/second'))[0]).not.toHaveProperty('after');
    expect(await records('/first')).toHaveLength(1);
    expect((await records('/third'))[0]).toMatchObject({ after: { limit: 3 } });
  });
});
