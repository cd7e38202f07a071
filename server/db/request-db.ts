// A request's view of the database: audit events written in its transactions name whose request they serve.
import type { RequestContext } from '../ops/request-context.ts';
import type { Db } from './types.ts';

/**
 * The database as a request's handlers see it: the same connections and caches (read-cache.ts keys them by
 * the engine's own functions, which this shares), and transactions that carry the request's context.
 */
export function requestDb(db: Db, context: RequestContext): Db {
  return { ...db, tx: (fn) => db.tx((q) => fn({ query: q.query, context })) };
}
