// Who is asking: the Bearer token (or ?token= on WebSocket upgrades) names the real user;
// an admin's X-Impersonate-User-Id makes the request act as another user. A token whose sign-in session
// ended (sign-out) is refused on the next request here, and within IDENTITY_TTL_MS on every other instance.
import type { IncomingMessage } from 'node:http';
import type { Db, Queryable } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import { sessionAlive } from './sessions.ts';
import { ACCESS_TOKEN_SECONDS, type TokenIssuer } from './tokens.ts';
import { findUser, type User } from './users.ts';
import type { Identity } from '../http/identity.ts';
import { TOKEN_PREFIX, tokenIdentity } from '../tokens/api-tokens.ts';

/** Who asks; sessionId and expiresAt (ms) come from the access token, for sockets that outlive a request. */
export type { Identity };
export const IMPERSONATE_HEADER = 'x-impersonate-user-id';

/**
 * How long a verified token, its user rows and whether its session is alive are reused: a second, so role and
 * name changes, and a sign-out on another instance, show quickly.
 */
const IDENTITY_TTL_MS = 1000;
const IDENTITY_CACHE_MAX = 10_000;

type Known = { identity: Identity; until: number };

export class Auth {
  // Who is asking, per (token, impersonation) pair: saves the ES256 verify and the user lookups
  // on every request of a busy client. Entries never outlive the token.
  private cache = new Map<string, Known>();
  // What each connection's last request presented in its headers: a keep-alive client sends the same ones
  // every time, and comparing them skips parsing the header and hashing the token (~1 µs a request).
  private lastOn = new WeakMap<object, { authorization: string; impersonate: unknown; known: Known }>();
  // Sessions signed out on this instance, with when: a lookup that began before the sign-out and ends after it
  // must not bring the session back for a second. Kept as long as a token naming them may live.
  private ended = new Map<number, number>();

  constructor(private db: Db, readonly tokens: TokenIssuer) {}

  async identify(req: IncomingMessage, options: { allowQueryToken?: boolean } = {}): Promise<Identity> {
    const { authorization, [IMPERSONATE_HEADER]: impersonate } = req.headers;
    const now = Date.now();
    const last = this.lastOn.get(req.socket);
    if (last && last.authorization === authorization && last.impersonate === impersonate && last.known.until > now) return this.unended(last.known.identity);
    const token = bearer(req) ?? (options.allowQueryToken ? queryToken(req) : null);
    if (!token) throw unauthorized();
    const raw = header(req, IMPERSONATE_HEADER) ?? (options.allowQueryToken ? new URL(req.url ?? '/', 'http://x').searchParams.get('impersonate') : null);
    const key = raw ? `${token}\n${raw}` : token;
    let known = this.cache.get(key);
    if (!known || known.until <= now) {
      const identity = await this.lookup(token, raw);
      if (this.cache.size >= IDENTITY_CACHE_MAX) this.cache.clear();
      this.cache.set(key, (known = { identity, until: Math.min(now + IDENTITY_TTL_MS, identity.expiresAt) }));
    }
    // Only what came in the headers is remembered: a query token or impersonation (sockets) is looked up each time.
    if (typeof authorization === 'string' && bearer(req) === token && (raw === null || header(req, IMPERSONATE_HEADER) === raw)) {
      this.lastOn.set(req.socket, { authorization, impersonate, known });
    }
    return this.unended(known.identity);
  }

  private unended(identity: Identity): Identity {
    if (identity.sessionId !== null && this.ended.has(identity.sessionId)) throw unauthorized('Signed out');
    return identity;
  }

  /** Drops cached identities of a user (as the real or the impersonated one) after their row or session changed. */
  forget(userId: number): void {
    for (const [key, known] of this.cache) {
      const { identity } = known;
      if (identity.user.id === userId || identity.realUser.id === userId) {
        known.until = 0; // also for the connections that remember it
        this.cache.delete(key);
      }
    }
  }

  /** A session signed out here: its tokens are refused from the next request on (other instances ask the database). */
  signedOut(sessionId: number, userId: number): void {
    const now = Date.now();
    for (const [id, at] of this.ended) {
      if (at > now - ACCESS_TOKEN_SECONDS * 1000) break;
      this.ended.delete(id);
    }
    this.ended.set(sessionId, now);
    this.forget(userId);
  }

  private async lookup(token: string, raw: string | null): Promise<Identity> {
    if (token.startsWith(TOKEN_PREFIX)) return apiTokenIdentity(this.db, token, raw);
    let claims: Awaited<ReturnType<TokenIssuer['verify']>>;
    try {
      claims = await this.tokens.verify(token);
    } catch {
      throw unauthorized('Invalid or expired token');
    }
    const sub = Number(claims.sub);
    const sessionId = Number.isInteger(claims.sid) ? (claims.sid as number) : null;
    // Tokens signed without a session (tests, tools) have none to end; every sign-in's token names one.
    const [realUser, alive] = await Promise.all([
      Number.isInteger(sub) ? findUser(this.db, sub) : null,
      sessionId === null || sessionAlive(this.db, sessionId),
    ]);
    if (!realUser) throw unauthorized('Invalid or expired token');
    if (!alive) throw unauthorized('Signed out');
    const session = { sessionId, expiresAt: claims.exp * 1000 };
    if (!raw) return { user: realUser, realUser, ...session };
    if (realUser.role !== 'admin') throw new HttpError(403, 'Impersonation is for admins only');
    const id = Number(raw);
    const user = /^\d+$/.test(raw) ? await findUser(this.db, id) : null;
    if (!user) throw new HttpError(404, 'Impersonated user not found');
    return { user, realUser, ...session };
  }
}

/** A personal API token's identity (issue 46): its user, within its scope, never as anyone else. */
async function apiTokenIdentity(db: Queryable, token: string, raw: string | null): Promise<Identity> {
  const found = await tokenIdentity(db, token);
  const user = found && (await findUser(db, found.userId));
  // Unknown, expired and revoked read alike.
  if (!found || !user) throw unauthorized('Invalid or expired token');
  if (raw) throw new HttpError(403, 'An API token cannot impersonate');
  // An admin token of a user who is no longer an admin reaches what a write token does.
  const scope = found.scope === 'admin' && user.role !== 'admin' ? 'write' : found.scope;
  return { user, realUser: user, sessionId: null, expiresAt: found.expiresAt, scope };
}

export function unauthorized(detail = 'Authentication required'): HttpError {
  return new HttpError(401, detail, { 'WWW-Authenticate': 'Bearer' });
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : null;
}

function bearer(req: IncomingMessage): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
  return m ? m[1] : null;
}

function queryToken(req: IncomingMessage): string | null {
  return new URL(req.url ?? '/', 'http://x').searchParams.get('token');
}
