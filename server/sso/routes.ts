// The single sign-on routes under /api/auth/oidc: the button's start and the provider's callback (both top-level
// browser navigations, answered with redirects: the sign-in page shows a refusal by its code), and the provider's
// back-channel logout. They are registered without OIDC_ISSUER too, and then say that sign-on is not set up.
import type { Api, PublicCtx } from '../http/api.ts';
import { HttpError } from '../http/errors.ts';
import { readForm } from '../http/body.ts';
import { RateLimiter } from '../ops/rate-limit.ts';
import { address } from '../auth/index.ts';
import type { Redirect, Sso } from './sso.ts';
import { SsoRefusal } from './refusal.ts';

/**
 * Sign-ins one address may start per minute: each keeps a row for ten minutes. Generous, since a company's staff may
 * all come from one address at nine in the morning; it bounds what one address can make the database keep.
 */
const STARTS_PER_MINUTE = 300;

export function registerSsoRoutes(api: Api, deps: { sso: () => Sso | null; starts?: RateLimiter }) {
  const starts = deps.starts ?? new RateLimiter(STARTS_PER_MINUTE, 60_000);

  api.get('/auth/oidc/start', async (ctx) => {
    const sso = deps.sso();
    if (!sso) return redirect(ctx, { location: '/?sign_in_error=not_configured', cookies: [] });
    if (starts.take(address(ctx.req)) > 0) throw new HttpError(429, 'Too many sign-in attempts. Try again in a minute.');
    const next = await sso.begin(ctx.req).catch((err) => {
      if (!(err instanceof SsoRefusal)) throw err;
      return { location: `/?sign_in_error=${err.code}`, cookies: [] };
    });
    return redirect(ctx, next);
  }, 'public');

  api.get('/auth/oidc/callback', async (ctx) => {
    const sso = deps.sso();
    if (!sso) return redirect(ctx, { location: '/?sign_in_error=not_configured', cookies: [] });
    return redirect(ctx, await sso.finish(ctx.req, ctx.url));
  }, 'public');

  // OpenID Connect Back-Channel Logout 1.0 §2.5: a form with logout_token; 200 when done, 400 with a reason otherwise.
  api.post('/auth/oidc/backchannel-logout', async (ctx) => {
    const sso = deps.sso();
    if (!sso) throw new HttpError(404, 'Single sign-on is not configured (OIDC_ISSUER)');
    const token = (await readForm(ctx.req)).get('logout_token');
    if (!token) throw new HttpError(400, 'logout_token is required');
    await sso.backchannelLogout(token);
    ctx.headers['Cache-Control'] = 'no-store';
    return { ok: true };
  }, 'public');
}

function redirect(ctx: PublicCtx, to: Redirect): undefined {
  // The callback's URL carries the code: the page it leads to does not pass it on as a Referer.
  ctx.res.writeHead(302, { Location: to.location, 'Set-Cookie': to.cookies, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  ctx.res.end();
  return undefined;
}
