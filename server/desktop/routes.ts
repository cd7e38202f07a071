// The live desktop: entering (a single-use tunnel ticket), screenshots, control of the desktop's input,
// whether desktops are available at all, and the tunnel itself, a WebSocket route served by the
// gateway (server/desktop/guac-gateway.ts).
import type { Api, Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { DesktopUnavailable } from './errors.ts';
import { TICKET_SHAPE, TUNNEL_ROUTE, tunnelUrl, type GuacGateway } from './view/gateway.ts';
import type { ScreenshotStore } from './view/screenshots.ts';
import type { Desktop, Desktops } from './types.ts';
import { agentIdParam } from '../agents/params.ts';
import { getAgentName } from '../agents/agents.ts';
import { recordAlone } from '../audit/audit.ts';
import type { Config } from '../config/index.ts';
import type { Log } from '../ops/log.ts';

/** What the desktop routes use; the hand-backs are supervision's (a hand-back answers once it is in the thread). */
type Deps = {
  config: Pick<Config, 'desktop'>;
  desktops: Desktops;
  gateway: GuacGateway;
  screenshots: ScreenshotStore;
  log: Log;
  handbacks?: { written(agentId: number): Promise<void> };
};

export function registerDesktopRoutes(api: Api, deps: Deps) {
  // The ticket is the authorisation: checked and spent by the gateway before the upgrade completes.
  api.ws(TUNNEL_ROUTE, async (ctx) => {
    if (!TICKET_SHAPE.test(ctx.params.ticket)) throw new HttpError(404, 'Not found');
    return deps.gateway.open(ctx.params.ticket);
  }, 'public');

  api.get('/desktops/status', (ctx) => deps.desktops.status());

  /** Starts the agent's desktop if needed and hands out a tunnel for one viewer. */
  api.post('/agents/enter', async (ctx) => {
    const id = await agentIdParam(ctx, (await ctx.body()).agent_id);
    const desktop = await start(deps, ctx, id);
    const name = await getAgentName(ctx.db, id);
    const { ticket, sessionId } = deps.gateway.issueTicket(ctx.user.id, id, name ?? `Agent ${id}`);
    return { guacamole_tunnel_url: tunnelUrl(ticket), session_id: sessionId, width: desktop.width, height: desktop.height };
  });

  api.get('/agents/:id/desktop', async (ctx) => {
    const id = await agentIdParam(ctx);
    const desktops = deps.desktops;
    const desktop = desktops.find ? await desktops.find(id) : desktops.running(id);
    return {
      ...deps.desktops.status(),
      running: !!desktop,
      ...(desktop ? { width: desktop.width, height: desktop.height } : {}),
      ...deps.gateway.describe(id),
    };
  });

  /** PNG of the live framebuffer, else the last stored one; 404 before there ever was one. */
  api.get('/agents/:id/screenshot', async (ctx) => {
    const id = await agentIdParam(ctx);
    const store = deps.screenshots;
    const desktops = deps.desktops;
    const live = desktops.find ? await desktops.find(id) : desktops.running(id);
    const png = live ? await live.screenshot() : await store.read(id);
    if (!png) throw new HttpError(404, 'No screenshot yet');
    if (live) store.saveLive(id, png);
    ctx.res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length, 'Cache-Control': 'no-store' });
    ctx.res.end(ctx.req.method === 'HEAD' ? undefined : png);
    return undefined;
  });

  /** {session_id, take}: the viewer with that tunnel session takes control of the input, or gives it up. */
  api.post('/agents/:id/control', async (ctx) => {
    const id = await agentIdParam(ctx);
    const { session_id, take } = await ctx.body();
    if (typeof session_id !== 'string' || !session_id) throw invalid('session_id', 'session_id is required');
    if (typeof take !== 'boolean') throw invalid('take', 'take must be true or false');
    const before = deps.gateway.describe(id).control;
    // The viewer may be another instance's (a fleet): the gateway passes the request to it.
    const result = await deps.gateway.setControlAnywhere(id, session_id, ctx.user.id, take);
    // Handed back here: answered once the hand-back is in the thread, so what the page sends next comes after it.
    if (!take) await deps.handbacks?.written(id);
    // Control lives in the servers' memory, not the database: the event is the only record of it.
    const now = result.control ? session_id : null;
    if ((before === session_id) !== (now === session_id)) {
      // Taken from another viewer (another tab of the person, or an admin's): a takeover.
      const action = !take ? 'desktop.hand_back' : before ? 'desktop.control_takeover' : 'desktop.take_control';
      await recordAlone(ctx.db, { action, target: { type: 'agent', id }, detail: { session_id, from_session: before } });
    }
    return result;
  });
}

async function start(deps: Deps, ctx: Ctx, id: number): Promise<Desktop> {
  const status = deps.desktops.status();
  if (!status.available) {
    // A server that cannot contain desktops refuses them (fails closed): on the record, unless desktops are simply off.
    if (deps.config.desktop.provider !== 'none') {
      await recordAlone(ctx.db, { action: 'desktop.start_refused', target: { type: 'agent', id }, detail: { reason: status.reason ?? null } });
    }
    throw new HttpError(503, status.reason ?? 'Desktops are off on this server');
  }
  try {
    return await deps.desktops.acquire(id);
  } catch (err) {
    if (err instanceof DesktopUnavailable) {
      await recordAlone(ctx.db, { action: 'desktop.start_refused', target: { type: 'agent', id }, detail: { reason: err.message.slice(0, 500) } });
      throw new HttpError(503, err.message);
    }
    deps.log.error(`desktop ${id} did not start: ${(err as Error).message}`);
    throw new HttpError(503, 'The desktop could not be started');
  }
}
