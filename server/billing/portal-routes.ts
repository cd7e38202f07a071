// The local provider's portal page (/api/billing/portal): opened in a new tab without the Bearer
// token, so a single-use token from POST /api/billing/portal-session stands in for it. Every view
// spends its token and the page carries a fresh one in its forms; a used or expired link says so.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { Api, PublicCtx } from '../http/api.ts';
import { readForm } from '../http/body.ts';
import { PAGE_HEADERS } from '../http/security.ts';
import { findUser } from '../auth/index.ts';
import { CUSTOMER_FIELDS, customerRow, fieldsOf, saveCustomerFields, savePaymentMethod, type CustomerFields } from './customers.ts';
import { issuePortalToken, spendPortalToken } from './portal-tokens.ts';
import { checkCustomerFields } from './customer-fields.ts';
import { expiredPage, portalPage, THEME_SCRIPT, type PortalView } from './portal-page.ts';
import { checkTestCard } from './test-cards.ts';
import type { Config } from '../config/index.ts';

type Deps = { config: Pick<Config, 'staticDir'> };

export function registerBillingPortalRoutes(api: Api, deps: Deps) {
  api.get('/billing/portal/theme.js', (ctx) => {
    ctx.res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
    ctx.res.end(THEME_SCRIPT);
    return undefined;
  }, 'public');

  api.get('/billing/portal', async (ctx) => {
    const userId = await spendPortalToken(ctx.db, ctx.query.get('token') ?? '');
    if (userId === null) return html(ctx.res, 403, expiredPage(await stylesheet(deps)));
    return html(ctx.res, 200, await render(deps, ctx, userId, {}));
  }, 'public');

  api.post('/billing/portal', async (ctx) => {
    const form = await readForm(ctx.req);
    const { db } = ctx;
    const userId = await spendPortalToken(db, form.get('token') ?? '');
    if (userId === null) return html(ctx.res, 403, expiredPage(await stylesheet(deps)));
    const value = (name: string) => form.get(name) ?? '';

    if (value('action') === 'card') {
      const input = { number: value('number'), exp_month: value('exp_month'), exp_year: value('exp_year'), cvc: value('cvc') };
      const checked = checkTestCard(input);
      if ('errors' in checked) {
        const cardInput = { exp_month: input.exp_month, exp_year: input.exp_year };
        return html(ctx.res, 422, await render(deps, ctx, userId, { cardErrors: checked.errors, cardInput }));
      }
      await savePaymentMethod(db, userId, checked.card);
      return html(ctx.res, 200, await render(deps, ctx, userId, { notice: 'Card saved. Usage-based billing now applies.' }));
    }
    if (value('action') === 'details') {
      const entered = Object.fromEntries(CUSTOMER_FIELDS.map((f) => [f, value(f)])) as CustomerFields;
      const { fields, errors } = checkCustomerFields(entered);
      if (Object.keys(errors).length) return html(ctx.res, 422, await render(deps, ctx, userId, { detailErrors: errors, details: entered }));
      await saveCustomerFields(db, userId, fields);
      return html(ctx.res, 200, await render(deps, ctx, userId, { notice: 'Billing details saved.' }));
    }
    return html(ctx.res, 400, await render(deps, ctx, userId, { notice: 'Unknown form: nothing was saved.' }));
  }, 'public');
}

async function render(deps: Deps, ctx: PublicCtx, userId: number, extra: Partial<PortalView>): Promise<string> {
  const { db } = ctx;
  const [user, row, token, css] = await Promise.all([findUser(db, userId), customerRow(db, userId), issuePortalToken(db, userId), stylesheet(deps)]);
  return portalPage({ email: user?.email ?? '', token, stylesheet: css, card: row.payment_method, details: fieldsOf(row), ...extra });
}

function html(res: ServerResponse, status: number, body: string): undefined {
  res.writeHead(status, {
    ...PAGE_HEADERS, // a page, though under /api
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    // The token is in this page's URL: never send it on in a Referer.
    'Referrer-Policy': 'no-referrer',
  });
  res.end(body);
  return undefined;
}

/** The app's hashed stylesheet, as the built index.html names it (none in API-only servers). */
async function stylesheet(deps: Deps): Promise<string | null> {
  const dir = deps.config.staticDir;
  if (!dir) return null;
  const index = await readFile(join(dir, 'index.html'), 'utf8').catch(() => '');
  return /<link rel="stylesheet" href="(\/assets\/[^"]+\.css)">/.exec(index)?.[1] ?? null;
}
