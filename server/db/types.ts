// The query interface every module uses, whichever engine is behind it (db.ts opens one).
import type { RequestContext } from '../ops/request-context.ts';

export type Row = Record<string, any>;
/** A hot query kept prepared under its name on each connection (see `prepared`). */
export type Statement = { readonly name: string; readonly text: string };
export type Sql = string | Statement;
export type Queryable = {
  query<T extends Row = Row>(sql: Sql, params?: unknown[]): Promise<T[]>;
  /** In a transaction begun on a request's database (requestDb): whose request it serves. */
  readonly context?: RequestContext;
};
export type Db = Queryable & {
  one<T extends Row = Row>(sql: Sql, params?: unknown[]): Promise<T | null>;
  /** Runs fn inside BEGIN/COMMIT on one connection; rolls back if it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly engine: 'pglite' | 'postgres';
  /**
   * Where the data stands, for answers kept in memory (read-cache.ts): equal versions mean equal data.
   * PGlite: how many writes (statements that may change data, transactions) have finished; this process is
   * its only writer. PostgreSQL: the current snapshot (one round trip, shared by the callers waiting).
   */
  version?(): number | Promise<string>;
  /** PostgreSQL only: a dedicated connection that LISTENs on a channel. */
  listen?(channel: string, onPayload: (payload: string) => void): Promise<void>;
};
