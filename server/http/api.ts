// Route registration with an auth level per route, and the per-request context handlers get.
// Handlers return a value: an object → 200 JSON (ctx.status overrides), null → 204,
// undefined → the handler wrote the response itself (files, streams).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../services.ts';
import type { Identity } from '../auth/auth.ts';
import type { User } from '../auth/users.ts';
import { readJson } from './body.ts';
import { HttpError, sendError, sendJson } from './errors.ts';
import { Router, type Params } from './router.ts';
import { requestId } from '../ops/request-id.ts';

export type AuthLevel = 'public' | 'user' | 'admin';

export type Ctx = {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Params;
  query: URLSearchParams;
  /** The user the request acts as (the impersonated one when an admin impersonates). */
  user: User;
  /** The signed-in user, who differs from `user` only during impersonation. */
  realUser: User;
  /** The sign-in session of the access token, when it names one. */
  sessionId: number | null;
  status: number;
  headers: Record<string, string>;
  body<T = Record<string, unknown>>(limit?: number): Promise<T>;
  services: Services;
};

export type Handler = (ctx: Ctx) => unknown | Promise<unknown>;
type Route = { handler: Handler; auth: AuthLevel; pattern: string };

export class Api {
  private router = new Router<Route>();
  /** The matched route pattern per request, for metrics and logs ('/agents/:id', not the raw path). */
  private patterns = new WeakMap<IncomingMessage, string>();
  constructor(private services: Services) {}

  routeOf(req: IncomingMessage): string | undefined {
    return this.patterns.get(req);
  }

  route(method: string, path: string, handler: Handler, auth: AuthLevel = 'user'): this {
    this.router.add(method, path, { handler, auth, pattern: path });
    return this;
  }
  get = (path: string, h: Handler, auth?: AuthLevel) => this.route('GET', path, h, auth);
  post = (path: string, h: Handler, auth?: AuthLevel) => this.route('POST', path, h, auth);
  put = (path: string, h: Handler, auth?: AuthLevel) => this.route('PUT', path, h, auth);
  patch = (path: string, h: Handler, auth?: AuthLevel) => this.route('PATCH', path, h, auth);
  delete = (path: string, h: Handler, auth?: AuthLevel) => this.route('DELETE', path, h, auth);

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    try {
      const { handler, params } = this.router.match(req.method ?? 'GET', url.pathname.slice('/api'.length) || '/');
      this.patterns.set(req, handler.pattern);
      const { user, realUser, sessionId } = await this.authenticate(req, handler.auth);
      const ctx: Ctx = {
        req, res, url, params, query: url.searchParams, user: user!, realUser: realUser!, sessionId: sessionId ?? null,
        status: 200, headers: {}, services: this.services,
        body: (limit) => readJson(req, limit),
      };
      const result = await handler.handler(ctx);
      if (result === undefined) return;
      if (result === null) {
        res.writeHead(204, { 'Cache-Control': 'no-store', ...ctx.headers });
        return void res.end();
      }
      sendJson(res, ctx.status, result, ctx.headers);
    } catch (err) {
      sendError(res, err, (msg) => this.services.log.error(msg, { request_id: requestId(req) }));
    }
  }

  private async authenticate(req: IncomingMessage, level: AuthLevel): Promise<Partial<Identity>> {
    if (level === 'public') {
      // Public routes still see who is asking when a valid token comes along.
      return this.services.auth.identify(req).catch(() => ({}));
    }
    const who = await this.services.auth.identify(req);
    // Admin powers belong to the signed-in admin, also while acting as someone else.
    if (level === 'admin' && who.realUser.role !== 'admin') throw new HttpError(403, 'Forbidden: Admins only');
    return who;
  }
}

/** Parses a path or query value as a positive integer id, else 404 (ids are never guessable shapes). */
export function idParam(value: string | null | undefined, what = 'Not found'): number {
  const n = Number(value);
  if (!value || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0 || n > 2147483647) throw new HttpError(404, what);
  return n;
}
