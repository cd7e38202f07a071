// Answers of hot reads (the polled agents list, a page of steps, who owns a thread) kept until the next
// write, where the database can tell cheaply that nothing changed: PGlite is written by this process only,
// so Db.writes() (a count of finished writes) changes whenever data may have. Without it (PostgreSQL,
// which other instances write too, and a transaction's Queryable) every call reads the database.
// A value is stored under the count read before its query began: a write that lands meanwhile moves the
// count on, so the value is never served again, and no value is ever newer-labelled than its data.
import type { Db, Queryable } from './types.ts';

export type CachedRead<V> = (db: Queryable, key: string) => Promise<V>;

/** `load` for keys (strings naming all its inputs), answered from memory while no write happened. */
export function cachedRead<V>(load: (db: Queryable, key: string) => Promise<V>, max = 2000): CachedRead<V> {
  const stores = new WeakMap<Queryable, Map<string, { at: number; value: V }>>();
  return async (db, key) => {
    const at = (db as Partial<Db>).writes?.();
    if (at === undefined) return load(db, key);
    let store = stores.get(db);
    if (!store) stores.set(db, (store = new Map()));
    const hit = store.get(key);
    if (hit && hit.at === at) return hit.value;
    const value = await load(db, key);
    if (store.size >= max) store.clear();
    store.set(key, { at, value });
    return value;
  };
}

const judged = new Map<string, boolean>();

/** Whether a statement may change data (anything but a plain read; a locking read counts, to be safe). */
export function mayWrite(text: string): boolean {
  let writes = judged.get(text);
  if (writes === undefined) {
    writes = !/^\s*(SELECT|WITH|SHOW)\b/i.test(text) || /\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|nextval|setval)\b/i.test(text);
    if (judged.size < 5000) judged.set(text, writes); // the statements are fixed texts: this stays small
  }
  return writes;
}
