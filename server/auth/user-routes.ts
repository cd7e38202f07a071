// /api/users: the current user, their password, the admin's user search, the monthly spend limit.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { idParam, type Api } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';
import { ADMIN_PASSWORD_FILE } from './bootstrap.ts';
import { passwordProblem } from './password-policy.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { endOtherSessions } from './sessions.ts';
import { issueReset } from './password-resets.ts';
import { findUser, findUserByEmail, publicUser } from './users.ts';
import { searchUsers, setSpendLimit, setUserName } from './user-admin.ts';
import { record } from '../audit/audit.ts';
import type { Auth } from './auth.ts';

/** `dataDir`: where a generated admin password is kept (bootstrap.ts), gone once that admin chooses their own. */
type Deps = { auth: Pick<Auth, 'forget' | 'signedOut'>; bus: Bus; dataDir?: string };

/** $10,000,000: far above any real limit, and inside the column's integer range. */
const MAX_LIMIT_CENTS = 1_000_000_000;

export function registerUserRoutes(api: Api, deps: Deps) {
  api.get('/users/auth-status', async (ctx) => {
    const { user, realUser } = ctx;
    if (!user || !realUser) return { authenticated: false };
    return {
      authenticated: true,
      user: publicUser(user),
      impersonating: user.id !== realUser.id,
      real_user: publicUser(realUser),
    };
  }, 'public');

  api.get('/users/me', (ctx) => ({ ...publicUser(ctx.user), impersonated_by: ctx.user.id !== ctx.realUser.id ? publicUser(ctx.realUser) : null }));

  // A new password of one's own: the current one must come along; every other session of the user ends (their
  // sockets close, on every instance), the one asking goes on.
  api.put('/users/me/password', async (ctx) => {
    if (ctx.user.id !== ctx.realUser.id) throw new HttpError(403, 'Only the user may change their own password');
    const body = await ctx.body();
    if (typeof body.current_password !== 'string' || !body.current_password) throw invalid('current_password', 'Current password is required');
    if (typeof body.new_password !== 'string') throw invalid('new_password', 'New password is required');
    const problem = passwordProblem(body.new_password, ctx.user.email);
    if (problem) throw invalid('new_password', problem);
    const row = await findUserByEmail(ctx.db, ctx.user.email);
    if (!row?.password_hash || !(await verifyPassword(body.current_password, row.password_hash))) {
      throw invalid('current_password', 'The current password is not right');
    }
    const hash = await hashPassword(body.new_password);
    const ended = await ctx.db.tx(async (q) => {
      await q.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [ctx.user.id, hash]);
      const others = await endOtherSessions(q, ctx.user.id, ctx.sessionId);
      const detail = { email: ctx.user.email, sessions_ended: others.length };
      await record(q, { action: 'auth.password_change', target: { type: 'user', id: ctx.user.id }, detail });
      return others;
    });
    for (const id of ended) {
      deps.bus.publish(TOPICS.sessionEnded(id), { session_id: id });
      deps.auth.signedOut(id, ctx.user.id);
    }
    // The first start's generated password is no longer this admin's: its file goes.
    if (deps.dataDir && ctx.user.email === 'admin@localhost') rmSync(join(deps.dataDir, ADMIN_PASSWORD_FILE), { force: true });
    return { sessions_ended: ended.length };
  });

  api.put('/users/me', async (ctx) => {
    const body = await ctx.body();
    if (body.name !== undefined && typeof body.name !== 'string') throw invalid('name', 'Name must be text');
    const name = typeof body.name === 'string' ? body.name.trim().slice(0, 200) : ctx.user.name;
    await ctx.db.tx(async (q) => {
      await setUserName(q, ctx.user.id, name);
      if (name === ctx.user.name) return;
      await record(q, { action: 'user.update', target: { type: 'user', id: ctx.user.id }, detail: { from: ctx.user.name, to: name } });
    });
    deps.auth.forget(ctx.user.id);
    return publicUser((await findUser(ctx.db, ctx.user.id))!);
  });

  api.get('/users/', (ctx) => searchUsers(ctx.db, ctx.query.get('search') ?? ''), 'admin');

  // A one-time link for a user to choose a new password (no mail needed): the admin passes it on. Its token is in
  // the fragment, which browsers send to no server and no Referer.
  api.post('/users/:id/password-reset', async (ctx) => {
    const id = idParam(ctx.params.id, 'User not found');
    const user = await findUser(ctx.db, id);
    if (!user) throw new HttpError(404, 'User not found');
    const link = await ctx.db.tx(async (q) => {
      const made = await issueReset(q, id, ctx.realUser.id);
      await record(q, { action: 'auth.password_reset_link', target: { type: 'user', id }, detail: { email: user.email, expires_at: made.expires_at } });
      return made;
    });
    ctx.status = 201;
    return { path: `/reset-password#${link.token}`, expires_at: link.expires_at };
  }, 'admin');

  api.patch('/users/me/limit', async (ctx) => {
    const limit_cents = (await ctx.body<{ limit_cents?: unknown } | null>())?.limit_cents;
    if (typeof limit_cents !== 'number' || !Number.isInteger(limit_cents) || limit_cents < 0 || limit_cents > MAX_LIMIT_CENTS) {
      throw invalid('limit_cents', `limit_cents must be a whole number of cents from 0 (no limit) to ${MAX_LIMIT_CENTS}`);
    }
    await ctx.db.tx(async (q) => {
      const from = await setSpendLimit(q, ctx.user.id, limit_cents);
      if (from !== limit_cents) {
        await record(q, { action: 'billing.spend_limit', target: { type: 'user', id: ctx.user.id }, detail: { from_cents: from, to_cents: limit_cents } });
      }
    });
    deps.auth.forget(ctx.user.id);
    return publicUser((await findUser(ctx.db, ctx.user.id))!);
  });
}
