// GET /api/metrics: Prometheus text format, for admins or whoever holds METRICS_TOKEN.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Api } from '../http/api.ts';
import { HttpError } from '../http/errors.ts';
import type { Config } from '../config/index.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Auth } from '../auth/index.ts';

type Deps = { auth: Pick<Auth, 'identify'>; config: Pick<Config, 'metricsToken'>; metrics?: Metrics };

export function registerMetricsRoutes(api: Api, deps: Deps) {
  // Public in the table: a METRICS_TOKEN is not a sign-in token; the check is here.
  api.get('/metrics', async (ctx) => {
    const { metricsToken } = deps.config;
    if (!(metricsToken && bearerIs(ctx.req, metricsToken))) {
      // As an 'admin' route would: 401 without a valid token, 403 for impersonation by a non-admin.
      const { realUser } = await deps.auth.identify(ctx.req);
      if (realUser.role !== 'admin') throw new HttpError(403, 'Forbidden: Admins only');
    }
    const text = (await deps.metrics?.render()) ?? '';
    ctx.res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' });
    ctx.res.end(text);
    return undefined;
  }, 'public');
}

function bearerIs(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? '').trim());
  if (!m) return false;
  const [a, b] = [Buffer.from(m[1]), Buffer.from(token)];
  return a.length === b.length && timingSafeEqual(a, b);
}
