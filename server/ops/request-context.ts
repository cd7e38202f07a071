// What the request being served is, for code far below the handler that records who did something (the
// audit trail): its id, the client's address and user agent, and — once signed in — who acts and who is
// behind an impersonation. Carried by AsyncLocalStorage, so domain functions need no extra arguments.
// Outside a request (runner, scheduler, mail) there is none and events name their actor themselves.
import { AsyncLocalStorage } from 'node:async_hooks';

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

const store = new AsyncLocalStorage<RequestContext>();

export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return store.run(context, fn);
}

export function requestContext(): RequestContext | undefined {
  return store.getStore();
}
