// Single sign-on with an OpenID Connect provider (issue 49), bound once to what it uses: the relying party, the
// database, the sessions' bus and the auth wing's notice of ended sessions. begin/finish are the browser's round trip
// through the provider; backchannelLogout is the provider's call; endSessionUrl is where sign-out sends the browser.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import * as client from 'openid-client';
import type { Auth } from '../auth/index.ts';
import { sessionCookie } from '../auth/index.ts';
import { record } from '../audit/audit.ts';
import type { OidcConfig } from '../config/index.ts';
import type { Db } from '../db/db.ts';
import { HttpError } from '../http/errors.ts';
import { ownOrigin } from '../http/origin.ts';
import type { Log } from '../ops/log.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';
import { signInAccount } from './accounts.ts';
import { flowCookie, saveFlow, takeFlow } from './flows.ts';
import { verifyLogoutToken } from './logout-token.ts';
import { RelyingParty } from './relying-party.ts';
import { providerError, SsoRefusal } from './refusal.ts';

export const CALLBACK_PATH = '/api/auth/oidc/callback';

export type SsoDeps = {
  db: Db; bus: Bus; log: Log; auth: Pick<Auth, 'signedOut' | 'forget'>;
  publicUrl: string | null;
  /** The port the server listens on (known after listen): the origin when PUBLIC_URL is unset. */
  port: () => number;
  /** ADMIN_EMAIL: the break-glass admin keeps the admin role whatever the groups say. */
  breakGlass: string | null;
};

/** A browser's next stop and the cookies it takes along. */
export type Redirect = { location: string; cookies: string[] };

const END_SESSIONS_OF_SUB = `DELETE FROM auth_sessions WHERE user_id IN (SELECT user_id FROM oidc_accounts WHERE issuer = $1 AND subject = $2)
  RETURNING id, user_id`;
const END_SESSIONS_OF_SID = `DELETE FROM auth_sessions WHERE id IN (
    SELECT s.session_id FROM oidc_sessions s JOIN oidc_accounts a ON a.id = s.account_id WHERE a.issuer = $1 AND s.sid = $2)
  RETURNING id, user_id`;
const SWEEP_LOGOUTS = 'DELETE FROM oidc_logout_tokens WHERE expires_at < now()';
const SEEN_LOGOUT = 'INSERT INTO oidc_logout_tokens (jti_hash, expires_at) VALUES ($1, to_timestamp($2)) ON CONFLICT DO NOTHING RETURNING 1';
const ID_TOKEN_OF_SESSION = 'SELECT id_token FROM oidc_sessions WHERE session_id = $1';
const USER_OF_SUB = 'SELECT user_id FROM oidc_accounts WHERE issuer = $1 AND subject = $2';

export class Sso {
  readonly rp: RelyingParty;

  constructor(readonly config: OidcConfig, private deps: SsoDeps) {
    this.rp = new RelyingParty(config, deps.log);
  }

  /** The sign-in button's text. */
  get name(): string {
    return this.config.name;
  }

  private origin(req: IncomingMessage): string {
    return ownOrigin(req, { publicUrl: this.deps.publicUrl, port: this.deps.port() }) ?? `http://localhost:${this.deps.port()}`;
  }

  /** The button: a new flow kept here, and the browser sent to the provider. */
  async begin(req: IncomingMessage): Promise<Redirect> {
    const { flow, url } = await this.rp.begin(this.origin(req) + CALLBACK_PATH);
    const id = await saveFlow(this.deps.db, flow);
    return { location: url.href, cookies: [flowCookie(req, id, this.deps.publicUrl)] };
  }

  /**
   * The provider sent the browser back: the flow is taken (once), the code exchanged and the ID token checked, the
   * account found, linked or made, and a session started; refusals go back to the sign-in page by their code.
   */
  async finish(req: IncomingMessage, url: URL): Promise<Redirect> {
    const cookies = [flowCookie(req, null, this.deps.publicUrl)];
    const flow = await takeFlow(this.deps.db, req).catch(() => null);
    // No flow of this browser's: nothing to check against, and nothing worth an audit event (anyone can call this).
    if (!flow) return { location: '/?sign_in_error=state', cookies };
    let email: string | null = null;
    try {
      if (url.searchParams.get('state') !== flow.state) throw new SsoRefusal('state', 'the state parameter is not the one this browser was sent with');
      const claims = await this.rp.finish(url, flow);
      email = claims.email;
      const signedIn = await this.deps.db.tx((q) => signInAccount(q, claims, { ...this.config, breakGlass: this.deps.breakGlass }));
      if (signedIn.roleChanged) this.deps.auth.forget(signedIn.user.id);
      cookies.push(sessionCookie(req, signedIn.session.token, this.deps.publicUrl));
      return { location: '/?signed_in=1', cookies };
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal.code === 'failed') this.deps.log.error(`sso: a sign-in failed: ${(err as Error)?.stack ?? err}`);
      const detail = { method: 'oidc', refused: refusal.code, reason: refusal.reason.slice(0, 300), ...(email ? { email } : {}) };
      await this.deps.db.tx((q) => record(q, { action: 'auth.sign_in_failed', actor: { type: 'system' }, detail })).catch(() => {});
      return { location: `/?sign_in_error=${refusal.code}`, cookies };
    }
  }

  /** The provider's back-channel logout: every session of the token's sub (or its sid's) ends, on every instance. */
  async backchannelLogout(token: string): Promise<number> {
    const keys = await this.rp.keys().catch(() => {
      throw new HttpError(400, 'The provider cannot be reached to check the logout token');
    });
    const claims = await verifyLogoutToken(token, { ...keys, clientId: this.config.clientId }).catch((err) => {
      throw new HttpError(400, `Invalid logout token: ${err.message}`);
    });
    const ended = await this.deps.db.tx(async (q) => {
      await q.query(SWEEP_LOGOUTS);
      const jti = createHash('sha256').update(`${keys.issuer} ${claims.jti}`).digest('base64url');
      if (!(await q.query(SEEN_LOGOUT, [jti, claims.exp])).length) throw new HttpError(400, 'Invalid logout token: already used (jti)');
      const sessions = await q.query<{ id: number; user_id: number }>(claims.sub ? END_SESSIONS_OF_SUB : END_SESSIONS_OF_SID,
        [keys.issuer, claims.sub ?? claims.sid]);
      const [owner] = claims.sub ? await q.query<{ user_id: number }>(USER_OF_SUB, [keys.issuer, claims.sub]) : [];
      const userId = owner?.user_id ?? sessions[0]?.user_id;
      await record(q, {
        action: 'auth.oidc_logout', actor: { type: 'system' }, target: userId ? { type: 'user', id: userId } : null,
        detail: { issuer: keys.issuer, sub: claims.sub, sid: claims.sid, sessions_ended: sessions.length },
      });
      return sessions;
    });
    // Sockets close now on every instance; other instances' tokens are refused within a second (auth/auth.ts).
    for (const s of ended) {
      this.deps.bus.publish(TOPICS.sessionEnded(s.id), { session_id: s.id });
      this.deps.auth.signedOut(s.id, s.user_id);
    }
    return ended.length;
  }

  /** RP-initiated logout: the provider's end_session URL for a session that came from it (null for others). */
  async endSessionUrl(sessionId: number, req: IncomingMessage): Promise<string | null> {
    const [row] = await this.deps.db.query<{ id_token: string }>(ID_TOKEN_OF_SESSION, [sessionId]);
    return row ? this.rp.endSessionUrl(row.id_token, `${this.origin(req)}/`) : null;
  }
}

/** Starts the relying party: discovery is tried now, and its outcome logged (a failure does not stop the start). */
export function startSso(config: OidcConfig, deps: SsoDeps): Sso {
  const sso = new Sso(config, deps);
  void sso.rp.discover().catch(() => {}); // logged by the relying party
  return sso;
}

function refusalOf(err: unknown): SsoRefusal {
  if (err instanceof SsoRefusal) return err;
  if (err instanceof client.AuthorizationResponseError) return new SsoRefusal(providerError(err.error), err.error_description ?? err.error);
  if (err instanceof client.ResponseBodyError) return new SsoRefusal('id_token', `the token endpoint answered ${err.error}: ${err.error_description ?? ''}`);
  const e = err as Error & { code?: string; cause?: unknown };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.message === 'fetch failed') return new SsoRefusal('unreachable', e.message);
  if (err instanceof client.ClientError || e?.name === 'OperationProcessingError' || e?.name === 'UnsupportedOperationError') {
    const cause = (e.cause as Error | undefined)?.message;
    return new SsoRefusal('id_token', `${e.message}${cause ? ` (${cause})` : ''}`);
  }
  return new SsoRefusal('failed', String(e?.message ?? err));
}
