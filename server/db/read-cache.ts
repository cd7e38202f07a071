// Answers of hot reads (the polled agents list, a page of steps, who owns a thread) kept while the data
// has not changed, as Db.version() tells: on PGlite a count of this process's writes (it is the only
// writer), on PostgreSQL the current snapshot, which any instance's commit moves on. A transaction's
// Queryable has no version: its reads always go to the database.
// A value is stored under the version read before its query began: a write that lands meanwhile moves
// the version on, so the value is never served again, and no value is ever labelled newer than its data.
// A PostgreSQL version is read after the request asked (see batch.ts), so an answer from memory still
// holds every write committed before the request came.
import type { Db, Queryable } from './types.ts';

export type CachedRead<V> = (db: Queryable, key: string) => Promise<V>;

type Store<V> = { at: number | string | undefined; values: Map<string, V> };

/** `load` for keys (strings naming all its inputs), answered from memory while the data is unchanged. */
export function cachedRead<V>(load: (db: Queryable, key: string) => Promise<V>, max = 2000): CachedRead<V> {
  // One store per database, under its version function: a request's view of the database (requestDb) shares it.
  const stores = new WeakMap<object, Store<V>>();
  return async (db, key) => {
    const versionOf = (db as Partial<Db>).version;
    if (!versionOf) return load(db, key);
    const version = versionOf();
    const at = typeof version === 'number' ? version : await version;
    let store = stores.get(versionOf);
    if (!store) stores.set(versionOf, (store = { at, values: new Map() }));
    if (store.at === at) {
      const hit = store.values.get(key);
      if (hit !== undefined) return hit;
    }
    const value = await load(db, key);
    // Values of another version are never answered again: drop them rather than keep them until `max`.
    if (store.at !== at || store.values.size >= max) store.values = new Map();
    store.at = at;
    store.values.set(key, value);
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
