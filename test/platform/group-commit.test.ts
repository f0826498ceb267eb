import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { RawStatement } from '../../src/platform/db/raw.js';

const INSERT = new RawStatement('insert into notes (id, text) values (?, ?)');

describe('transactions sharing one commit (SQLite)', () => {
  let database: Database;
  afterEach(() => database?.close());

  const open = async () => {
    database = await openDatabase({});
    await sql`create table notes (id integer primary key, text text not null)`.execute(database.db);
    return database;
  };
  const texts = async () => (await sql<{ text: string }>`select text from notes order by id`.execute(database.db)).rows.map((r) => r.text);

  it('commits the units that succeed and rolls back only the one that fails', async () => {
    await open();
    const results = await Promise.allSettled([
      database.transact(async (trx) => {
        await INSERT.run(trx, 'sqlite', [1, 'first']);
        return 'one';
      }),
      database.transact(async (trx) => {
        await INSERT.run(trx, 'sqlite', [2, 'doomed']);
        throw new Error('refused');
      }),
      database.transact(async (trx) => {
        // Sees the first unit's row: units of a group run one after another.
        const seen = await sql<{ n: number }>`select count(*) as n from notes`.execute(trx);
        await INSERT.run(trx, 'sqlite', [3, `third after ${seen.rows[0].n}`]);
        return 'three';
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseFulfilledResult<string>).value).toBe('one');
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('refused');
    expect(await texts()).toEqual(['first', 'third after 1']);
  });

  it('fails every unit of a group whose commit fails, and keeps none of their writes', async () => {
    await open();
    // A deferred foreign key is only checked at commit: the commit fails for the whole group.
    await sql`pragma foreign_keys = on`.execute(database.db);
    await sql`create table parents (id integer primary key)`.execute(database.db);
    await sql`create table children (id integer primary key, parent integer references parents(id) deferrable initially deferred)`.execute(
      database.db,
    );
    const results = await Promise.allSettled([
      database.transact(async (trx) => {
        await INSERT.run(trx, 'sqlite', [1, 'innocent']);
      }),
      database.transact(async (trx) => {
        await sql`insert into children (id, parent) values (1, 42)`.execute(trx);
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await texts()).toEqual([]);
    // The connection is usable afterwards.
    await database.transact((trx) => INSERT.run(trx, 'sqlite', [2, 'later']));
    expect(await texts()).toEqual(['later']);
  });
});
