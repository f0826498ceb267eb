import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { logFileOf, openDatabase, type Database } from '../../src/platform/db/database.js';
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

  it('takes the write lock when a group begins, so another process cannot commit under a group that has only read', async () => {
    // Deferred, a group that read first and wrote after another process committed failed at once
    // with SQLITE_BUSY (its snapshot stale): racing holds in a cluster answered INTERNAL_ERROR.
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'pbs-group-'));
    const file = path.join(directory, 'pbs.sqlite');
    database = await openDatabase({ sqlitePath: file });
    await sql`create table notes (id integer primary key, text text not null)`.execute(database.db);
    const other = new SqliteDatabase(file, { timeout: 0 });
    try {
      const seenInside = await database.transact(async (trx) => {
        await sql`select count(*) as n from notes`.execute(trx);
        // The other connection (as another process would) cannot start writing while the group is open.
        let refused = '';
        try {
          other.exec('begin immediate');
          other.exec('rollback');
        } catch (error) {
          refused = (error as { code?: string }).code ?? String(error);
        }
        // The log file, which the request log's writer thread writes, stays free.
        const logFile = new SqliteDatabase(logFileOf(file), { timeout: 0 });
        try {
          logFile.exec('begin immediate');
          logFile.exec('rollback');
        } finally {
          logFile.close();
        }
        await INSERT.run(trx, 'sqlite', [1, 'written']);
        return refused;
      });
      expect(seenInside).toBe('SQLITE_BUSY');
      // Once the group has committed, the other connection writes.
      other.exec("insert into notes (id, text) values (2, 'after')");
      expect(await texts()).toEqual(['written', 'after']);
    } finally {
      other.close();
      await database.close();
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
