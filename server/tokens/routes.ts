// /api/tokens (issue 46): a user's personal API tokens, made (the secret shown once), listed and revoked;
// /api/admin/tokens: every user's, for admins, who revoke any. Tokens are managed from a signed-in session only: a
// token that could make tokens would outlive its own revocation, and one made while impersonating would let an
// admin act as the user later without an impersonation on record.
import { idParam, type Api, type Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import type { TokenScope } from '../http/identity.ts';
import { record } from '../audit/audit.ts';
import { createToken, listAllTokens, listTokens, revokeToken, tokenFor } from './api-tokens.ts';

const SCOPES: TokenScope[] = ['read', 'write', 'admin'];
const MAX_DAYS = 365;

/** `forget`: the user's identities cached by this instance go, so a revoked token is refused at once. */
export function registerTokenRoutes(api: Api, deps: { forget: (userId: number) => void }) {
  api.get('/tokens', (ctx) => listTokens(ctx.db, session(ctx).user.id));

  api.post('/tokens', async (ctx) => {
    const { user, realUser } = session(ctx);
    if (user.id !== realUser.id) throw new HttpError(403, 'Forbidden: a token is made by its own user, not while impersonating');
    const body = await ctx.body();
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (!name || name.length > 100) throw invalid('name', 'name: 1 to 100 characters');
    const scope = SCOPES.find((s) => s === body.scope);
    if (!scope) throw invalid('scope', 'scope: read, write or admin');
    if (scope === 'admin' && user.role !== 'admin') throw invalid('scope', 'scope: only admins may make admin tokens');
    const days = body.expires_in_days ?? null;
    if (days !== null && (!Number.isInteger(days) || (days as number) < 1 || (days as number) > MAX_DAYS)) {
      throw invalid('expires_in_days', `expires_in_days: a whole number of days from 1 to ${MAX_DAYS}, or null for never`);
    }
    const made = await ctx.db.tx(async (q) => {
      const token = await createToken(q, user.id, name, scope, days as number | null);
      await record(q, { action: 'token.create', target: { type: 'token', id: token.id }, detail: { name, scope, expires_at: token.expires_at } });
      return token;
    });
    ctx.status = 201;
    return made;
  });

  api.delete('/tokens/:id', async (ctx) => {
    const { user, realUser } = session(ctx);
    const found = await tokenFor(ctx.db, idParam(ctx.params.id, 'Token not found'), user.id, realUser.role === 'admin');
    if (!found) throw new HttpError(404, 'Token not found');
    await ctx.db.tx(async (q) => {
      await revokeToken(q, found.id);
      await record(q, { action: 'token.revoke', target: { type: 'token', id: found.id }, detail: { name: found.name, user_id: found.user_id } });
    });
    deps.forget(found.user_id);
    return null;
  });

  api.get('/admin/tokens', (ctx) => listAllTokens(session(ctx).db), 'admin');
}

/** The request's session: a request made with an API token may not manage tokens. */
function session(ctx: Ctx): Ctx {
  if (ctx.scope) throw new HttpError(403, 'Forbidden: API tokens cannot manage API tokens; sign in to do it');
  return ctx;
}
