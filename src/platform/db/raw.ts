import { CompiledQuery } from 'kysely';
import type { Dialect, DbOrTx } from './database.js';
import { directRunner } from './group-commit.js';

/**
 * PostgreSQL texts of every RawStatement, with a statement name: the connection pool sends them
 * as named prepared statements, so PostgreSQL parses and plans each once per connection.
 */
export const preparedOnPostgres = new Map<string, string>();

/** `?` placeholders as PostgreSQL's `$1, $2, …` (a statement both databases share). */
export function postgresPlaceholders(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/**
 * A hot-path statement written once in SQL with `?` placeholders and run without Kysely's
 * builder and compiler (which cost more than the query itself on small lookups). The same text
 * serves both databases: placeholders become `$1, $2, …` on PostgreSQL. Keep to SQL both share.
 */
export class RawStatement<Row = Record<string, unknown>> {
  private readonly postgresText: string;

  constructor(private readonly sqliteText: string) {
    this.postgresText = postgresPlaceholders(sqliteText);
    preparedOnPostgres.set(this.postgresText, `pbs_${preparedOnPostgres.size + 1}`);
  }

  async rows(db: DbOrTx, dialect: Dialect, parameters: readonly unknown[]): Promise<Row[]> {
    const direct = dialect === 'sqlite' ? directRunner(db) : undefined;
    if (direct) {
      const statement = direct(this.sqliteText);
      // Cast: better-sqlite3 types rows as unknown; the statement's text selects the columns of `Row`.
      if (statement.reader) return statement.all([...parameters]) as Row[];
      statement.run([...parameters]);
      return [];
    }
    const text = dialect === 'postgres' ? this.postgresText : this.sqliteText;
    return (await db.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]))).rows;
  }

  /** Rows changed by an INSERT, UPDATE or DELETE. */
  async run(db: DbOrTx, dialect: Dialect, parameters: readonly unknown[]): Promise<number> {
    const direct = dialect === 'sqlite' ? directRunner(db) : undefined;
    if (direct) return direct(this.sqliteText).run([...parameters]).changes;
    const text = dialect === 'postgres' ? this.postgresText : this.sqliteText;
    const result = await db.executeQuery(CompiledQuery.raw(text, [...parameters]));
    return Number(result.numAffectedRows ?? 0);
  }
}

/**
 * A PostgreSQL-only statement with named parameters (`:name`, the same name as often as needed;
 * `::type` casts are left alone), for statements long enough that positional ones would be
 * unreadable. Runs as a named prepared statement, like RawStatement.
 */
export class PostgresStatement<Row = Record<string, unknown>, Params extends string = string> {
  private readonly statement: RawStatement<Row>;
  private readonly names: Params[] = [];

  constructor(text: string) {
    const text$ = text.replace(/(?<![:\w]):([a-z_]+)/g, (_, name: Params) => {
      let index = this.names.indexOf(name);
      if (index < 0) index = this.names.push(name) - 1;
      return `$${index + 1}`;
    });
    if (text$.includes('?')) throw new Error('PostgresStatement takes :name parameters, not ?');
    this.statement = new RawStatement<Row>(text$);
  }

  rows(db: DbOrTx, parameters: Record<Params, unknown>): Promise<Row[]> {
    return this.statement.rows(
      db,
      'postgres',
      this.names.map((name) => parameters[name]),
    );
  }
}
