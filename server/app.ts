// The HTTP application: security headers, request log, /api routes, and the SPA for everything else;
// `upgrade` resolves WebSocket upgrades against the same /api route table.
import type { IncomingMessage } from 'node:http';
import { Api } from './http/api.ts';
import { HttpError, sendError } from './http/errors.ts';
import type { AppResponse } from './http/response.ts';
import { answerKind, standingHeaders } from './http/security.ts';
import { serveStatic } from './http/static.ts';
import { registerAuthRoutes } from './auth/index.ts';
import { registerHealthRoutes } from './health/routes.ts';
import { registerUserRoutes } from './auth/index.ts';
import { registerAgentRoutes } from './agents/routes.ts';
import { registerAgentFileRoutes } from './agents/files-route.ts';
import { registerSupervisionRoutes } from './supervision/routes.ts';
import { recordImpersonatedChange } from './audit/audit.ts';
import { registerThreadRoutes } from './threads/routes.ts';
import { registerMessageRoutes } from './threads/message-routes.ts';
import { registerRealtimeRoutes } from './threads/realtime-routes.ts';
import { registerTraceRoutes } from './traces/routes.ts';
import { registerDesktopRoutes } from './desktop/index.ts';
import { registerReportRoutes } from './reports/routes.ts';
import { registerBillingRoutes } from './billing/index.ts';
import { registerBillingPortalRoutes } from './billing/index.ts';
import { registerEmailSettingsRoutes } from './mail/index.ts';
import { registerAdminMailRoutes, resetMailer } from './mail/index.ts';
import { registerAdminRoutes } from './admin/routes.ts';
import { registerScreenshareRoutes } from './recording/routes.ts';
import { registerSchedulerRoutes } from './schedules/routes.ts';
import { registerMetricsRoutes } from './health/metrics-routes.ts';
import { registerAdminAuditRoutes } from './audit/routes.ts';
import { registerAdminSpendRoutes } from './admin/spend-routes.ts';
import { registerReplayRoutes } from './replay/index.ts';
import { registerVaultRoutes } from './vault/index.ts';
import { registerTokenRoutes } from './tokens/routes.ts';
import { registerWebhookRoutes } from './webhooks/index.ts';
import { registerPushRoutes } from './push/index.ts';
import { registerSsoRoutes } from './sso/index.ts';
import { registerOpenApiRoutes } from './openapi/index.ts';
import { handleInternal, INTERNAL_PREFIX } from './desktop/index.ts';
import { assignRequestId } from './ops/request-id.ts';
import type { RequestContext } from './ops/request-context.ts';
import type { Parts } from './parts.ts';

/**
 * `parts` is what start.ts built; each wing registers its routes with the parts it uses, read when a request comes
 * (tests swap some of them on a running server).
 */
export function createApp(parts: Parts) {
  const { config, db, auth } = parts;
  const api = new Api({
    db, get log() { return parts.log; }, identify: (req, options) => auth.identify(req, options), onImpersonatedChange: recordImpersonatedChange,
  });
  registerHealthRoutes(api);
  registerAuthRoutes(api, {
    auth, bus: parts.bus, signup: config.signup, publicUrl: config.publicUrl, dataDir: config.dataDir, get port() { return parts.port; },
    sendResetMail: config.smtpRelayUrl ? resetMailer(config) : undefined,
    signin: () => parts.config.signin, breakGlass: config.adminEmail,
    sso: { name: () => parts.sso?.name ?? null, endSessionUrl: async (id, req) => parts.sso?.endSessionUrl(id, req) ?? null },
  });
  registerSsoRoutes(api, { sso: () => parts.sso ?? null });
  registerUserRoutes(api, { auth, bus: parts.bus, dataDir: config.dataDir });
  registerAgentRoutes(api, parts);
  registerAgentFileRoutes(api, parts);
  registerSupervisionRoutes(api, parts);
  registerThreadRoutes(api, parts);
  registerMessageRoutes(api);
  registerRealtimeRoutes(api, parts);
  registerTraceRoutes(api, parts);
  registerDesktopRoutes(api, parts);
  registerReportRoutes(api);
  registerBillingRoutes(api, parts);
  registerBillingPortalRoutes(api, parts);
  registerEmailSettingsRoutes(api, parts);
  registerAdminRoutes(api, parts);
  registerAdminMailRoutes(api, parts);
  registerAdminAuditRoutes(api, parts);
  registerAdminSpendRoutes(api);
  if (parts.replays) registerReplayRoutes(api, parts.replays.deps);
  if (parts.vault) registerVaultRoutes(api, { box: parts.vault.box, bus: parts.bus });
  registerTokenRoutes(api, { forget: (userId) => auth.forget(userId) });
  if (parts.secrets) registerWebhookRoutes(api, { box: parts.secrets, bus: parts.bus, allowPrivate: () => parts.config.webhookAllowPrivate });
  if (parts.vapid) registerPushRoutes(api, { vapid: parts.vapid, bus: parts.bus, allowPrivate: () => parts.config.webhookAllowPrivate });
  registerScreenshareRoutes(api, parts);
  registerSchedulerRoutes(api);
  registerMetricsRoutes(api, parts);
  registerOpenApiRoutes(api);

  const handle = async function handle(req: IncomingMessage, res: AppResponse): Promise<void> {
    const started = performance.now();
    // What the audit trail records of the request (its id, the client's address and agent; the users once signed in).
    const context: RequestContext = {
      requestId: assignRequestId(req), ip: req.socket.remoteAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') ?? null,
      userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null, method: req.method ?? 'GET', recorded: 0,
    };
    const request_id = context.requestId;
    const path = req.url?.split('?')[0] ?? '/';
    const kind = answerKind(path);
    const isApi = kind === 'api';
    res.standing = standingHeaders(kind, request_id);
    res.on('finish', () => {
      const seconds = (performance.now() - started) / 1000;
      // Unmatched API paths share one label, so scanners cannot grow the series without bound.
      const route = context.route ?? (isApi ? 'unmatched' : 'static');
      parts.metrics?.observe(req.method ?? 'GET', route, res.statusCode, seconds);
      if (!config.logRequests) return;
      // By default a read that went well (the pages poll every few seconds) is not worth a line.
      if (config.logRequests === 'changes' && (req.method === 'GET' || req.method === 'HEAD') && res.statusCode < 400) return;
      const ms = Math.round(seconds * 10000) / 10;
      parts.log.info(`${req.method} ${path} ${res.statusCode} ${ms}ms`, { request_id, method: req.method, path, route, status: res.statusCode, ms });
    });
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (isApi) return await api.handle(req, res, url, context);
      if (url.pathname.startsWith(INTERNAL_PREFIX)) return await handleInternal(parts, req, res);
      if (!config.staticDir) return sendError(res, new HttpError(404, 'Not found'));
      await serveStatic(config.staticDir, req, res, url.pathname);
    } catch (err) {
      sendError(res, err, (msg) => parts.log.error(msg, { request_id }));
    }
  };
  return Object.assign(handle, {
    upgrade: (req: IncomingMessage, url: URL) => api.upgrade(req, url),
    // The route list, read-only, for the security suite (every route needs an authorization entry).
    routes: () => api.routes(),
  });
}
