// What the request being served is, for code below the handler that records who did something (the audit
// trail): its id, the client's address and user agent, and — once signed in — who acts and who is behind an
// impersonation. It travels with the database the handlers are given (server/db/request-db.ts): a
// transaction begun on it carries the context, and audit.record() reads it there. Passed along, not kept in an
// AsyncLocalStorage, whose hooks run for every promise and tick of every request: ~10 % of a hot GET.
// Outside a request (runner, scheduler, mail) there is none and events name their actor themselves.

export type Person = { id: number; email: string; role: string };

export type RequestContext = {
  requestId: string;
  ip: string | null;
  userAgent: string | null;
  method: string;
  /** The user the request acts as, and the signed-in one (differs only while impersonating). */
  user?: Person;
  realUser?: Person;
  /** The matched route pattern ('/agents/:id', not the raw path), for metrics and logs. */
  route?: string;
  /** How many audit events this request has written (the impersonation catch-all records only when none). */
  recorded: number;
};

