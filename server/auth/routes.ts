// The built-in sign-in provider: sign-up, sign-in, token (from the refresh cookie), sign-out.
import type { IncomingMessage } from 'node:http';
import type { Api, Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { verifyPassword } from './passwords.ts';
import { RateLimiter } from './rate-limit.ts';
import { createSession, deleteSession, readCookie, REFRESH_COOKIE, sessionCookie, sessionUserId } from './sessions.ts';
import { createUser, findUser, findUserByEmail, validEmail } from './users.ts';

const MIN_PASSWORD = 8;
const MAX_PASSWORD = 256;
const WRONG = 'Invalid email or password';

export function registerAuthRoutes(api: Api, options: { signup: 'open' | 'closed' }) {
  // Failed sign-ins count against the address and the account; sign-ups only against the address.
  const perAddress = new RateLimiter(50, 15 * 60_000);
  const perAccount = new RateLimiter(10, 15 * 60_000);
  const signUps = new RateLimiter(300, 60 * 60_000);

  api.post('/auth/sign-up', async (ctx) => {
    if (options.signup === 'closed') throw new HttpError(403, 'Sign-up is closed');
    const { email, password } = credentials(await ctx.body());
    if (password.length < MIN_PASSWORD) throw invalid('password', `Password must be at least ${MIN_PASSWORD} characters`);
    limit(signUps, `ip:${address(ctx.req)}`);
    signUps.hit(`ip:${address(ctx.req)}`);
    const db = ctx.services.db;
    if (await findUserByEmail(db, email)) throw new HttpError(409, 'An account with this email already exists');
    const user = await createUser(db, email, password).catch((err) => {
      if (err?.code === '23505') throw new HttpError(409, 'An account with this email already exists');
      throw err;
    });
    return signedIn(ctx, user);
  }, 'public');

  api.post('/auth/sign-in', async (ctx) => {
    const { email, password } = credentials(await ctx.body());
    const ipKey = `ip:${address(ctx.req)}`;
    const accountKey = `account:${email.toLowerCase()}`;
    limit(perAddress, ipKey);
    limit(perAccount, accountKey);
    const user = await findUserByEmail(ctx.services.db, email);
    // Same answer and the same scrypt cost whether or not the account exists.
    const ok = await verifyPassword(password, user?.password_hash);
    if (!user || !ok) {
      perAddress.hit(ipKey);
      perAccount.hit(accountKey);
      throw new HttpError(401, WRONG);
    }
    perAccount.reset(accountKey);
    return signedIn(ctx, user);
  }, 'public');

  api.post('/auth/token', async (ctx) => {
    const cookie = readCookie(ctx.req, REFRESH_COOKIE);
    const userId = cookie ? await sessionUserId(ctx.services.db, cookie) : null;
    const user = userId ? await findUser(ctx.services.db, userId) : null;
    if (!user) {
      if (cookie) ctx.headers['Set-Cookie'] = sessionCookie(ctx.req, null);
      throw new HttpError(401, 'Authentication required', ctx.headers);
    }
    return { token: await ctx.services.auth.tokens.sign(user) };
  }, 'public');

  api.post('/auth/sign-out', async (ctx) => {
    const cookie = readCookie(ctx.req, REFRESH_COOKIE);
    if (cookie) await deleteSession(ctx.services.db, cookie);
    ctx.headers['Set-Cookie'] = sessionCookie(ctx.req, null);
    return null;
  }, 'public');
}

async function signedIn(ctx: Ctx, user: { id: number; role: string; email: string }) {
  ctx.headers['Set-Cookie'] = sessionCookie(ctx.req, await createSession(ctx.services.db, user.id));
  return { token: await ctx.services.auth.tokens.sign(user) };
}

function credentials(body: Record<string, unknown>): { email: string; password: string } {
  const { email, password } = body ?? {};
  if (!validEmail(email)) throw invalid('email', 'Enter a valid email address');
  if (typeof password !== 'string' || !password) throw invalid('password', 'Password is required');
  if (password.length > MAX_PASSWORD) throw invalid('password', `Password must be at most ${MAX_PASSWORD} characters`);
  return { email: email.trim(), password };
}

function limit(limiter: RateLimiter, key: string) {
  const wait = limiter.retryAfter(key);
  if (wait > 0) throw new HttpError(429, 'Too many sign-in attempts. Try again later.', { 'Retry-After': String(wait) });
}

function address(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}
