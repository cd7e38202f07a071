// The built-in sign-in provider: sign-up, sign-in, token (from the refresh cookie), sign-out. Every call here
// sets or reads the refresh cookie, so each one must come from our own pages (JSON, same origin).
// Guessing is limited three ways, each attempt counted before its password is checked: per account and
// address (locked after 10 failures), per address (50), and per account from anywhere (slowed, never
// closed, so nobody can lock the admin out from elsewhere).
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { ADMIN_PASSWORD_FILE } from './bootstrap.ts';
import type { Bus } from '../realtime/bus.ts';
import type { Auth } from './auth.ts';
import type { Api, PublicCtx, PublicHandler } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { ownOrigin, requireSameSiteJson } from '../http/origin.ts';
import { MAX_PASSWORD, passwordProblem } from './password-policy.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { RateLimiter } from '../ops/rate-limit.ts';
import { createSession, deleteSession, endOtherSessions, findSession, readCookie, REFRESH_COOKIE, sessionCookie } from './sessions.ts';
import { createUser, findUser, findUserByEmail, validEmail } from './users.ts';
import { record, recordAlone, SYSTEM } from '../audit/audit.ts';
import type { AuditAction } from '../audit/actions.ts';
import { TOPICS } from '../realtime/topics.ts';
import { issueReset, takeReset } from './password-resets.ts';

const WRONG = 'Invalid email or password';
const WINDOW_MS = 15 * 60_000;
/** Account-wide failures before each further attempt is slowed, and how much at most. */
const FREE_FAILURES = 10;
const MAX_SLOWDOWN_MS = 5000;

export type SignInLimits = { perPair: RateLimiter; perAddress: RateLimiter; perAccount: RateLimiter; signUps: RateLimiter };

export function signInLimits(): SignInLimits {
  return {
    perPair: new RateLimiter(10, WINDOW_MS),
    perAddress: new RateLimiter(50, WINDOW_MS),
    perAccount: new RateLimiter(Number.MAX_SAFE_INTEGER, WINDOW_MS),
    signUps: new RateLimiter(300, 60 * 60_000),
  };
}

/** What sign-in uses: the token issuer and the sign-out notice (auth), the bus, SIGNUP, PUBLIC_URL, and the limits (tests set them). */
type Deps = {
  auth: Pick<Auth, 'tokens' | 'signedOut'>; bus: Bus; signup: 'open' | 'closed'; publicUrl: string | null; limits?: SignInLimits;
  /** DATA_DIR, where a generated admin password is kept (bootstrap.ts); none: not told. */
  dataDir?: string;
  /** With a mail relay (SMTP_RELAY_URL): sends a user their reset link; without one, only an admin makes links. */
  sendResetMail?: (to: string, link: string) => Promise<void>;
  /** The port the server listens on (read per request): the origin of a mailed link when PUBLIC_URL is unset. */
  port?: number;
  /** SIGNIN, read per request: with 'oidc-only' a password signs in only the break-glass admin, and nobody signs up. */
  signin?: () => 'any' | 'oidc-only';
  /** ADMIN_EMAIL: the break-glass admin of SIGNIN=oidc-only. */
  breakGlass?: string | null;
  /**
   * Single sign-on (server/sso, above this wing): the button's text (null: none), and where sign-out sends the browser
   * when the session came from the provider (its end_session_endpoint).
   */
  sso?: { name: () => string | null; endSessionUrl: (sessionId: number, req: IncomingMessage) => Promise<string | null> };
};

const OIDC_ONLY = 'Password sign-in is off on this server: use the single sign-on button';

export function registerAuthRoutes(api: Api, deps: Deps) {
  const { perPair, perAddress, perAccount, signUps } = deps.limits ?? signInLimits();
  const post = (path: string, handler: PublicHandler) =>
    api.post(path, (ctx) => {
      requireSameSiteJson(ctx.req, deps.publicUrl);
      return handler(ctx);
    }, 'public');

  post('/auth/sign-up', async (ctx) => {
    if (deps.signup === 'closed') throw new HttpError(403, 'Sign-up is closed');
    if (deps.signin?.() === 'oidc-only') throw new HttpError(403, 'Accounts are made at the first single sign-on: use the sign-on button');
    const { email, password } = credentials(await ctx.body());
    const problem = passwordProblem(password, email);
    if (problem) throw invalid('password', problem);
    limit(signUps.take(`ip:${address(ctx.req)}`));
    const db = ctx.db;
    if (await findUserByEmail(db, email)) throw new HttpError(409, 'An account with this email already exists');
    const user = await createUser(db, email, password).catch((err) => {
      if (err?.code === '23505') throw new HttpError(409, 'An account with this email already exists');
      throw err;
    });
    return signedIn(deps, ctx, user, 'auth.sign_up');
  });

  post('/auth/sign-in', async (ctx) => {
    const { email, password } = credentials(await ctx.body());
    // Before any guess is counted or checked: only the break-glass admin (ADMIN_EMAIL) has a password to try.
    if (deps.signin?.() === 'oidc-only' && email.toLowerCase() !== deps.breakGlass?.toLowerCase()) throw new HttpError(403, OIDC_ONLY);
    const from = address(ctx.req);
    const account = `account:${email.toLowerCase()}`;
    const pair = `${account}|ip:${from}`;
    // Counted first: 40 guesses sent at once meet the limit just like 40 in a row.
    limit(perPair.retryAfter(pair) || perAddress.retryAfter(`ip:${from}`));
    perPair.hit(pair);
    perAddress.hit(`ip:${from}`);
    const earlier = perAccount.count(account);
    perAccount.hit(account);
    if (earlier >= FREE_FAILURES) await sleep(Math.min(MAX_SLOWDOWN_MS, 250 * (earlier - FREE_FAILURES + 1)));
    const user = await findUserByEmail(ctx.db, email);
    // Same answer and the same scrypt cost whether or not the account exists.
    const ok = await verifyPassword(password, user?.password_hash);
    if (!user || !ok) {
      const target = user ? { type: 'user' as const, id: user.id } : null;
      await recordAlone(ctx.db, { action: 'auth.sign_in_failed', actor: SYSTEM, target, detail: { email } });
      // This failure locked the pair or the address (the check above let it through): the lockout starts now.
      const locked = perPair.retryAfter(pair) ? 'account_and_address' : perAddress.retryAfter(`ip:${from}`) ? 'address' : null;
      if (locked) await recordAlone(ctx.db, { action: 'auth.lockout', actor: SYSTEM, target, detail: { email, scope: locked } });
      throw new HttpError(401, WRONG);
    }
    perPair.reset(pair);
    perAccount.reset(account);
    perAddress.refund(`ip:${from}`);
    return signedIn(deps, ctx, user, 'auth.sign_in');
  });

  // The sign-in page of a first start says where the generated admin password is kept, while it is (not what it is).
  api.get('/auth/first-start', () => ({
    admin_password_file: !!deps.dataDir && existsSync(join(deps.dataDir, ADMIN_PASSWORD_FILE)),
    // Whether "Forgot your password?" can mail a link, or the page sends the user to an admin.
    password_reset_by_mail: !!deps.sendResetMail,
    // The single sign-on button's text (null: no button), and whether the password form is offered (SIGNIN).
    sso_name: deps.sso?.name() ?? null,
    password_sign_in: deps.signin?.() !== 'oidc-only',
  }), 'public');

  // "Forgot your password?": with a relay, a one-time link by mail to the account's address. The answer is the same
  // whether an account has that address or not (nobody learns who has one), and an address may ask only so often.
  post('/auth/password-reset-request', async (ctx) => {
    const { email } = await ctx.body();
    if (typeof email !== 'string' || !validEmail(email)) throw invalid('email', 'A valid e-mail address is required');
    if (!deps.sendResetMail) throw new HttpError(404, 'Password reset by mail needs a mail relay (SMTP_RELAY_URL): ask an administrator for a link');
    limit(perAddress.take(`reset:${address(ctx.req)}`));
    const user = await findUserByEmail(ctx.db, email);
    if (user) {
      const link = await ctx.db.tx(async (q) => {
        const made = await issueReset(q, user.id, null);
        const detail = { email: user.email, by: 'mail' };
        await record(q, { action: 'auth.password_reset_link', actor: SYSTEM, target: { type: 'user', id: user.id }, detail });
        return made;
      });
      const origin = ownOrigin(ctx.req, { publicUrl: deps.publicUrl, port: deps.port ?? 0 }) ?? `http://localhost:${deps.port}`;
      await deps.sendResetMail(user.email, `${origin}/reset-password#${link.token}`);
    }
    ctx.status = 202;
    return { detail: 'If an account has that address, a link to choose a new password is on its way.' };
  });

  post('/auth/token', async (ctx) => {
    const cookie = readCookie(ctx.req, REFRESH_COOKIE);
    const session = cookie ? await findSession(ctx.db, cookie) : null;
    const user = session ? await findUser(ctx.db, session.user_id) : null;
    if (!user) {
      if (cookie) ctx.headers['Set-Cookie'] = sessionCookie(ctx.req, null, deps.publicUrl);
      throw new HttpError(401, 'Authentication required', ctx.headers);
    }
    return { token: await deps.auth.tokens.sign(user, session!.id) };
  });

  // A reset link's new password: the link is spent, every session of the user ends, and they sign in anew.
  post('/auth/password-reset', async (ctx) => {
    const body = await ctx.body();
    if (typeof body.token !== 'string' || !body.token) throw invalid('token', 'token is required');
    if (typeof body.new_password !== 'string') throw invalid('new_password', 'New password is required');
    const ended = await ctx.db.tx(async (q) => {
      const userId = await takeReset(q, body.token as string);
      if (userId === null) throw new HttpError(400, 'This link has expired or was already used. Ask for a new one.');
      const user = (await findUser(q, userId))!;
      const problem = passwordProblem(body.new_password as string, user.email);
      if (problem) throw invalid('new_password', problem);
      await q.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [userId, await hashPassword(body.new_password as string)]);
      const sessions = await endOtherSessions(q, userId, null);
      const actor = { type: 'user' as const, id: userId, label: user.email };
      await record(q, { action: 'auth.password_reset', actor, target: { type: 'user', id: userId }, detail: { sessions_ended: sessions.length } });
      return { userId, sessions };
    });
    for (const id of ended.sessions) {
      deps.bus.publish(TOPICS.sessionEnded(id), { session_id: id });
      deps.auth.signedOut(id, ended.userId);
    }
    return null;
  });

  post('/auth/sign-out', async (ctx) => {
    const cookie = readCookie(ctx.req, REFRESH_COOKIE);
    // A session from the provider: the browser goes on to end the provider's session too (RP-initiated logout).
    const own = cookie && deps.sso?.name() ? await findSession(ctx.db, cookie) : null;
    const endSessionUrl = own ? await deps.sso!.endSessionUrl(own.id, ctx.req) : null;
    const ended = !cookie ? null : await ctx.db.tx(async (q) => {
      const session = await deleteSession(q, cookie);
      const who = session && (await q.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [session.user_id]))[0];
      if (session && who) {
        await record(q, {
          action: 'auth.sign_out', actor: { type: 'user', id: session.user_id, label: who.email }, target: { type: 'user', id: session.user_id },
          detail: { session_id: session.id },
        });
      }
      return session;
    });
    // Its sockets close now, on every server instance, instead of streaming on until their token expires.
    if (ended) deps.bus.publish(TOPICS.sessionEnded(ended.id), { session_id: ended.id });
    if (ended) deps.auth.signedOut(ended.id, ended.user_id);
    ctx.headers['Set-Cookie'] = sessionCookie(ctx.req, null, deps.publicUrl);
    return ended && endSessionUrl ? { end_session_url: endSessionUrl } : null;
  });
}

async function signedIn(deps: Deps, ctx: PublicCtx, user: { id: number; role: string; email: string }, action: AuditAction) {
  const session = await ctx.db.tx(async (q) => {
    const created = await createSession(q, user.id);
    const actor = { type: 'user' as const, id: user.id, label: user.email };
    await record(q, { action, actor, target: { type: 'user', id: user.id }, detail: { session_id: created.id } });
    return created;
  });
  ctx.headers['Set-Cookie'] = sessionCookie(ctx.req, session.token, deps.publicUrl);
  return { token: await deps.auth.tokens.sign(user, session.id) };
}

function credentials(body: Record<string, unknown>): { email: string; password: string } {
  const { email, password } = body ?? {};
  if (!validEmail(email)) throw invalid('email', 'Enter a valid email address');
  if (typeof password !== 'string' || !password) throw invalid('password', 'Password is required');
  if (password.length > MAX_PASSWORD) throw invalid('password', `Password must be at most ${MAX_PASSWORD} characters`);
  return { email: email.trim(), password };
}

function limit(wait: number) {
  if (wait > 0) throw new HttpError(429, 'Too many sign-in attempts. Try again later.', { 'Retry-After': String(wait) });
}

/** The client's address; IPv6 clients by their /64, which one host usually has whole. */
export function address(req: IncomingMessage): string {
  const raw = (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '').replace(/%.*$/, '');
  if (!raw.includes(':')) return raw;
  const [head, tail] = raw.split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const groups = tail === undefined ? front : [...front, ...Array(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups.slice(0, 4).map((g) => parseInt(g || '0', 16).toString(16)).join(':')}::/64`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
