// Who is asking: the Bearer token (or ?token= on WebSocket upgrades) names the real user;
// an admin's X-Impersonate-User-Id makes the request act as another user.
import type { IncomingMessage } from 'node:http';
import type { Db } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import type { TokenIssuer } from './tokens.ts';
import { findUser, type User } from './users.ts';

/** Who asks; sessionId and expiresAt (ms) come from the access token, for sockets that outlive a request. */
export type Identity = { user: User; realUser: User; sessionId: number | null; expiresAt: number };
export const IMPERSONATE_HEADER = 'x-impersonate-user-id';

export class Auth {
  constructor(private db: Db, readonly tokens: TokenIssuer) {}

  async identify(req: IncomingMessage, options: { allowQueryToken?: boolean } = {}): Promise<Identity> {
    const token = bearer(req) ?? (options.allowQueryToken ? queryToken(req) : null);
    if (!token) throw unauthorized();
    let claims: Awaited<ReturnType<TokenIssuer['verify']>>;
    try {
      claims = await this.tokens.verify(token);
    } catch {
      throw unauthorized('Invalid or expired token');
    }
    const sub = Number(claims.sub);
    const realUser = Number.isInteger(sub) ? await findUser(this.db, sub) : null;
    if (!realUser) throw unauthorized('Invalid or expired token');
    const session = { sessionId: Number.isInteger(claims.sid) ? (claims.sid as number) : null, expiresAt: claims.exp * 1000 };

    const raw = header(req, IMPERSONATE_HEADER) ?? (options.allowQueryToken ? new URL(req.url ?? '/', 'http://x').searchParams.get('impersonate') : null);
    if (!raw) return { user: realUser, realUser, ...session };
    if (realUser.role !== 'admin') throw new HttpError(403, 'Impersonation is for admins only');
    const id = Number(raw);
    const user = /^\d+$/.test(raw) ? await findUser(this.db, id) : null;
    if (!user) throw new HttpError(404, 'Impersonated user not found');
    return { user, realUser, ...session };
  }
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
