import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Multi-row INSERT for bulk writes where the ORM's unit of work is too slow (e.g. 100,000 validation
 * results). Goes through MikroORM's Kysely instance, so values travel as real bind parameters ($1, $2, ...)
 * and the statement joins the caller's transaction when `em` is inside `em.transactional(...)`.
 */

export type BulkValue = string | number | boolean | bigint | Date | Buffer | null | Record<string, unknown> | unknown[];

export interface InsertManyOptions {
  /** Rows per statement; further capped so that rows x columns stays below PostgreSQL's 65,535 bind parameters. */
  chunkSize?: number;
  /** `ignore` adds ON CONFLICT DO NOTHING (rows that collide with a unique key are skipped, not counted). */
  onConflict?: 'error' | 'ignore';
}

/** Any table, any column: the names are checked here and the values travel as bind parameters. */
type AnyTables = Record<string, Record<string, unknown>>;

const MAX_BIND_PARAMETERS = 65_535;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Inserts `rows` (arrays ordered like `columns`) into `table` with one statement per chunk.
 * Plain objects and arrays are sent as JSON text, which suits json/jsonb columns (not PostgreSQL array columns).
 * Returns the number of rows inserted. Not atomic across chunks unless `em` is inside a transaction.
 */
export async function insertMany(
  em: EntityManager,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly BulkValue[])[],
  options: InsertManyOptions = {},
): Promise<number> {
  assertIdentifier(table, 'table', true);
  if (columns.length === 0) throw new Error('insertMany: at least one column is required');
  columns.forEach((c) => assertIdentifier(c, 'column', false));
  if (new Set(columns).size !== columns.length) throw new Error('insertMany: duplicate column names');
  rows.forEach((row, i) => {
    if (row.length !== columns.length) {
      throw new Error(`insertMany: row ${i} has ${row.length} values, expected ${columns.length} (${columns.join(', ')})`);
    }
  });

  const requested = options.chunkSize ?? 1000;
  if (!Number.isInteger(requested) || requested < 1) throw new Error('insertMany: chunkSize must be a positive integer');
  const chunkSize = Math.min(requested, Math.floor(MAX_BIND_PARAMETERS / columns.length));

  const db = em.getKysely<AnyTables>();
  let inserted = 0;
  for (let start = 0; start < rows.length; start += chunkSize) {
    const values = rows.slice(start, start + chunkSize).map((row) => toRecord(columns, row));
    let query = db.insertInto(table).values(values);
    if (options.onConflict === 'ignore') query = query.onConflict((oc) => oc.doNothing());
    const results = await query.executeTakeFirst();
    inserted += Number(results.numInsertedOrUpdatedRows ?? 0n);
  }
  return inserted;
}

function toRecord(columns: readonly string[], row: readonly BulkValue[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  columns.forEach((column, i) => { record[column] = encode(row[i]); });
  return record;
}

function encode(value: BulkValue | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  // node-postgres would turn a JS array into a PostgreSQL array literal; JSON text is what jsonb wants.
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

function assertIdentifier(name: string, what: string, allowSchema: boolean): void {
  const parts = allowSchema ? name.split('.') : [name];
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    throw new Error(`insertMany: invalid ${what} name ${JSON.stringify(name)}`);
  }
}
