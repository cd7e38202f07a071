// /api/users: the current user, the admin's user search, the monthly spend limit.
import type { Api } from '../http/api.ts';
import { invalid } from '../http/errors.ts';
import { findUser, publicUser } from './users.ts';
import { searchUsers, setSpendLimit, setUserName } from './user-admin.ts';
import { record } from '../audit/audit.ts';
import type { Auth } from './auth.ts';

type Deps = { auth: Pick<Auth, 'forget'> };

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
