// Route registration with an auth level per route, and the per-request context handlers get.
// Handlers return a value: an object → 200 JSON (ctx.status overrides), null → 204,
// undefined → the handler wrote the response itself (files, streams).
// WebSocket routes (api.ws) share the table, the auth levels and the error path: see upgrade().
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { Db } from '../db/db.ts';
import type { Log } from '../ops/log.ts';
import type { Identify, Identity, TokenScope, User } from './identity.ts';
import { badText, readJsonObject } from './body.ts';
import { COMPRESS_MIN_BYTES, keepUncompressed } from './compress.ts';
import { etagOf, notModified, REVALIDATE, sendNotModified, VALIDATE_MAX_BYTES } from './conditional.ts';
import { HttpError, invalid, jsonText, sendError, sendJsonText } from './errors.ts';
import { statusOf } from '../system/status-error.ts';
import { JsonText } from './json-text.ts';
import { Router, type Params } from './router.ts';
import { databaseUnavailable } from '../db/unavailable.ts';
import type { RequestContext } from '../ops/request-context.ts';
import { requestDb } from '../db/request-db.ts';

export type AuthLevel = 'public' | 'user' | 'admin';

/**
 * Routes whose answers carry a secret (access and refresh tokens, a hub token in a URL, a single-use
 * billing link): never compressed, so that the length of a compressed body cannot leak the secret to
 * someone who gets their own text reflected beside it (BREACH). Patterns, matched as prefixes.
 */
export const SECRET_BEARING_ROUTES = ['/auth/', '/realtime/negotiate', '/billing/portal-session', '/tokens'];

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
  /** The scope of the personal API token the caller came with; null for a signed-in session. */
  scope: TokenScope | null;
  status: number;
  headers: Record<string, string>;
  /** The JSON body, always an object (anything else is a 422). */
  body<T = Record<string, unknown>>(limit?: number): Promise<T>;
  /** The database as this request sees it: its transactions name who acts (db/request-db.ts). */
  db: Db;
  /** Set by a POST that changes nothing (it hands out a token to read with): no impersonation event for it. */
  readOnly?: boolean;
};

export type Handler = (ctx: Ctx) => unknown | Promise<unknown>;
type Route = { handler: Handler; auth: AuthLevel; pattern: string; socket?: SocketRoute };

/** A public route sees who is asking only when a valid token came along: the users may be missing. */
export type PublicCtx = Omit<Ctx, 'user' | 'realUser'> & { user: User | undefined; realUser: User | undefined };
export type PublicHandler = (ctx: PublicCtx) => unknown | Promise<unknown>;
/** Registers a route; the handler's ctx says whether the users may be missing (auth 'public'). */
type Register = {
  (path: string, h: Handler, auth?: 'user' | 'admin'): Api;
  (path: string, h: PublicHandler, auth: 'public'): Api;
};

/** A WebSocket route's context: the request's, without a response; expiresAt (ms) is the token's. */
export type WsCtx = Pick<Ctx, 'req' | 'url' | 'params' | 'query' | 'user' | 'realUser' | 'sessionId' | 'db'> & { expiresAt: number };
/** Checks the request before the upgrade completes and returns how to serve the accepted socket. */
export type WsHandler = (ctx: WsCtx) => Promise<(ws: WebSocket) => void>;
export type PublicWsHandler = (
  ctx: Omit<WsCtx, 'user' | 'realUser'> & { user: User | undefined; realUser: User | undefined },
) => Promise<(ws: WebSocket) => void>;
type SocketRoute = { handler: WsHandler; protocol?: string };
/** A registered route as the security suite sees it: one entry per method (WS for a socket) and pattern. */
export type RouteInfo = { method: string; path: string; auth: AuthLevel };

/** What the route table needs of the server: the database, the log, who is asking, and what to do after a change
 * made while an admin impersonates (the audit trail's event, when the change wrote none of its own). */
export type ApiParts = {
  db: Db;
  log: Log;
  identify: Identify;
  onImpersonatedChange?: (db: Db, change: { userId: number; method: string; route: string | undefined }) => Promise<void>;
};

export class Api {
  private router = new Router<Route>();
  constructor(private parts: ApiParts) {}

  route(method: string, path: string, handler: Handler, auth?: 'user' | 'admin'): this;
  route(method: string, path: string, handler: PublicHandler, auth: 'public'): this;
  route(method: string, path: string, handler: Handler | PublicHandler, auth: AuthLevel = 'user'): this {
    // The one place a PublicHandler is stored as a Handler: handle() passes public routes possibly no user.
    this.router.add(method, path, { handler: handler as Handler, auth, pattern: path });
    return this;
  }
  private register = (method: string): Register => ((path: string, h: Handler, auth?: AuthLevel) => this.route(method, path, h, auth as 'user')) as Register;
  get = this.register('GET');
  post = this.register('POST');
  put = this.register('PUT');
  patch = this.register('PATCH');
  delete = this.register('DELETE');

  /**
   * A WebSocket route: a GET that must be an upgrade (a plain GET gets 426). Tokens may come in the query
   * (browsers cannot set headers on a socket); `protocol`: the subprotocol the client must offer.
   */
  ws(path: string, handler: WsHandler, auth?: 'user' | 'admin', options?: { protocol?: string }): this;
  ws(path: string, handler: PublicWsHandler, auth: 'public', options?: { protocol?: string }): this;
  ws(path: string, handler: WsHandler | PublicWsHandler, auth: AuthLevel = 'user', options: { protocol?: string } = {}): this {
    const plainGet: Handler = () => {
      throw new HttpError(426, 'Upgrade Required', { Upgrade: 'websocket' });
    };
    this.router.add('GET', path, { handler: plainGet, auth, pattern: path, socket: { handler: handler as WsHandler, protocol: options.protocol } });
    return this;
  }

  /**
   * Resolves an upgrade request against the route table. Throws HttpError for what is refused before the
   * upgrade (404 without a WebSocket route, 400 without the route's subprotocol): the caller answers in
   * HTTP. Auth and handler failures become a socket that closes at once with 4000 + status (browsers
   * cannot read an HTTP status on a failed upgrade), unexpected errors are logged like HTTP 500s.
   */
  async upgrade(req: IncomingMessage, url: URL): Promise<(ws: WebSocket) => void> {
    let match: { handler: Route; params: Params };
    try {
      match = this.router.match('GET', url.pathname.slice('/api'.length) || '/');
    } catch {
      throw new HttpError(404, 'Not found');
    }
    const route = match.handler;
    const socket = route.socket;
    if (!socket) throw new HttpError(404, 'Not found');
    if (socket.protocol && !offeredProtocols(req).includes(socket.protocol)) throw new HttpError(400, 'Unsupported subprotocol');
    try {
      const who = await this.authenticate(req, route.auth, { allowQueryToken: true });
      return await socket.handler({
        req, url, params: match.params, query: url.searchParams, user: who.user!, realUser: who.realUser!,
        sessionId: who.sessionId ?? null, expiresAt: who.expiresAt ?? 0, db: this.parts.db,
      });
    } catch (err) {
      // 1013 "try again later": the client's reconnect loop gets through once the database is back.
      if (databaseUnavailable(err)) return (ws) => ws.close(1013, 'The database is unavailable. Try again shortly.');
      const own = statusOf(err);
      const status = own?.status ?? 500;
      const reason = own ? String(own.detail) : 'Internal server error';
      if (!own) this.parts.log.error(`socket: ${(err as Error).stack ?? err}`);
      return (ws) => ws.close(status >= 400 && status < 500 ? 4000 + status : 1011, reason.slice(0, 120));
    }
  }

  /** Every registered route, read-only (the security suite checks each has an authorization entry). */
  routes(): RouteInfo[] {
    return this.router.list().map(({ method, pattern, handler }) => ({ method: handler.socket ? 'WS' : method, path: pattern, auth: handler.auth }));
  }

  /** `context`: the request's (request-context.ts), which learns the matched route and who is asking. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, context: RequestContext): Promise<void> {
    try {
      const { handler, params } = this.router.match(req.method ?? 'GET', url.pathname.slice('/api'.length) || '/');
      context.route = handler.pattern;
      const secret = SECRET_BEARING_ROUTES.some((prefix) => handler.pattern.startsWith(prefix));
      if (secret) keepUncompressed(res);
      const { user, realUser, sessionId, scope } = await this.authenticate(req, handler.auth);
      if (user && realUser) Object.assign(context, { user, realUser });
      for (const [name, value] of url.searchParams) {
        const bad = badText(value, ['query', name]);
        if (bad) throw new HttpError(422, [{ loc: bad.loc, msg: bad.msg, type: 'value_error' }]);
      }
      const ctx: Ctx = {
        req, res, url, params, query: url.searchParams, user: user!, realUser: realUser!, sessionId: sessionId ?? null, scope: scope ?? null,
        status: 200, headers: {}, db: requestDb(this.parts.db, context),
        body: (limit) => readJsonObject(req, limit),
      };
      const result = await handler.handler(ctx);
      if (user !== realUser) await this.auditImpersonation(ctx, context);
      if (result === undefined) return;
      if (result === null) {
        res.writeHead(204, { 'Cache-Control': 'no-store', ...ctx.headers });
        return void res.end();
      }
      if (res.headersSent) return void res.end(); // it wrote its answer and returned a value besides
      const text = jsonText(result);
      const get = req.method === 'GET' || req.method === 'HEAD';
      if (get && ctx.status === 200 && !secret && text.length <= VALIDATE_MAX_BYTES && !ctx.headers['Cache-Control']) {
        // Polled lists: the client's copy is revalidated each time and an unchanged one costs a 304.
        // Secret-bearing answers stay no-store: a token has no business in the browser's disk cache.
        // Only a JsonText is worth remembering things about: it is what read caches answer again.
        const of = result instanceof JsonText ? result : undefined;
        const etag = etagOf(text, of);
        if (notModified(req, etag)) {
          return sendNotModified(res, etag, Buffer.byteLength(text) >= COMPRESS_MIN_BYTES ? { Vary: 'Accept-Encoding' } : {});
        }
        ctx.headers.ETag = etag;
        ctx.headers['Cache-Control'] = REVALIDATE;
        return sendJsonText(res, 200, text, ctx.headers, of);
      }
      sendJsonText(res, ctx.status, text, ctx.headers, result instanceof JsonText ? result : undefined);
    } catch (err) {
      sendError(res, err, (msg) => this.parts.log.error(msg, { request_id: context.requestId }));
    }
  }

  /**
   * Every change made while impersonating leaves an event naming the user and the admin: the change's own event
   * when it wrote one, else this one (method and route), written once the handler succeeded.
   */
  private async auditImpersonation(ctx: Ctx, context: RequestContext): Promise<void> {
    if (context.recorded || !ctx.user || !ctx.realUser || ctx.user.id === ctx.realUser.id) return;
    if (['GET', 'HEAD', 'OPTIONS'].includes(context.method) || ctx.readOnly) return;
    const route = context.route;
    // The change is made: a failed record is logged, not answered as a failure of the change.
    await this.parts.onImpersonatedChange?.(ctx.db, { userId: ctx.user.id, method: context.method, route }).catch((err) => {
      this.parts.log.error(`audit: impersonated ${context.method} ${route} not recorded: ${err.message}`, { request_id: context.requestId });
    });
  }

  private authenticate(req: IncomingMessage, level: AuthLevel, options?: { allowQueryToken?: boolean }): Promise<Partial<Identity>> {
    // Public routes still see who is asking when a valid token comes along (and may act for it).
    if (level === 'public') return this.parts.identify(req, options).then((who) => (refusal(who, level, req.method) ? {} : who), () => ({}));
    return this.parts.identify(req, options).then((who) => {
      const refused = refusal(who, level, req.method);
      if (refused) throw new HttpError(403, refused);
      // Admin powers belong to the signed-in admin, also while acting as someone else.
      if (level === 'admin' && who.realUser.role !== 'admin') throw new HttpError(403, 'Forbidden: Admins only');
      return who;
    });
  }
}

/** Why a personal API token may not make this call (issue 46): its scope; null when it may, or for a session. */
function refusal(who: Identity, level: AuthLevel, method = 'GET'): string | null {
  if (!who.scope) return null;
  if (who.scope === 'read' && !['GET', 'HEAD', 'OPTIONS'].includes(method)) return 'Forbidden: this API token may only read (scope read)';
  if (level === 'admin' && who.scope !== 'admin') return `Forbidden: this API token's scope (${who.scope}) does not reach admin routes`;
  return null;
}

/** Parses a path or query value as a positive integer id, else 404 (ids are never guessable shapes). */
export function idParam(value: string | null | undefined, what = 'Not found'): number {
  const n = Number(value);
  if (!value || !/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0 || n > 2147483647) throw new HttpError(404, what);
  return n;
}

/** An id sent in a JSON body: a number or a string of digits, as idParam; a list or an object is a 422, not id 1. */
export function idField(value: unknown, field: string, what = 'Not found'): number {
  if (value !== undefined && value !== null && typeof value !== 'number' && typeof value !== 'string') throw invalid(field, `${field} must be an id`);
  return idParam(String(value ?? ''), what);
}

function offeredProtocols(req: IncomingMessage): string[] {
  return String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
}
