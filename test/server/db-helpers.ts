// Databases of a test's own, for the migration tests: empty, or as the schema stood before a given migration.
import { randomUUID } from 'node:crypto';
import { openDb, type Db } from '../../server/db/db.ts';
import { splitStatements } from '../../server/db/migrate.ts';
import { MIGRATIONS } from '../../server/migrations.ts';

/** A database of its own: PGlite in memory, or a throwaway schema (named `prefix`_…) of the test PostgreSQL. */
export async function emptyDb(prefix: string): Promise<{ db: Db; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const db = await openDb({ dataDir: null });
    return { db, drop: () => db.close() };
  }
  const schema = `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = await openDb({ databaseUrl: url });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const db = await openDb({ databaseUrl: url, schema });
  return {
    db,
    drop: async () => {
      await db.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.close();
    },
  };
}

/** Applies the migrations numbered below `id`, recorded as applied: the schema as it stood before `id`. */
export async function migrateBefore(db: Db, id: number): Promise<void> {
  await db.query('CREATE TABLE schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const m of MIGRATIONS.filter((m) => m.id < id)) {
    for (const statement of splitStatements(m.sql)) await db.query(statement);
    await db.query('INSERT INTO schema_migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
  }
}
