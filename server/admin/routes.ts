// /api/admin (admin only, spec §6/§7 "Admin"): every user's agents and threads, the threads waiting
// for approval, deleting a thread, and the data directory's free space. The communication-message routes are in admin-mail.ts.
import { idParam, type Api } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import {
  deleteAdminThread, getAdminAgentThreads, getAdminThread, listAdminAgents, listThreadsRequiringApproval,
} from './admin.ts';
import type { Bus } from '../realtime/bus.ts';
import type { AgentStorage } from '../agents/storage.ts';
import { SLEEPING } from '../agents/agents.ts';
import type { Desktops, FleetDesktops } from '../desktop/index.ts';

type Deps = { bus: Bus; storage: Pick<AgentStorage, 'disk'>; desktops: Desktops; fleet?: FleetDesktops | null };

export function registerAdminRoutes(api: Api, deps: Deps) {
  api.get('/admin/agents', (ctx) => listAdminAgents(ctx.db), 'admin');

  // The agent's overview row comes along so the page can name the agent with one request.
  api.get('/admin/threads', async (ctx) => {
    if (!ctx.query.get('agent_id')) throw invalid('agent_id', 'agent_id is required', 'query');
    const found = await getAdminAgentThreads(ctx.db, idParam(ctx.query.get('agent_id'), 'Agent not found'));
    if (!found) throw new HttpError(404, 'Agent not found');
    return found;
  }, 'admin');

  api.get('/admin/threads/:id', async (ctx) => {
    const thread = await getAdminThread(ctx.db, idParam(ctx.params.id, 'Thread not found'));
    if (!thread) throw new HttpError(404, 'Thread not found');
    return thread;
  }, 'admin');

  api.delete('/admin/threads/:id', async (ctx) => {
    const deleted = await deleteAdminThread(ctx.db, deps.bus, idParam(ctx.params.id, 'Thread not found'));
    if (!deleted) throw new HttpError(404, 'Thread not found');
    return null;
  }, 'admin');

  api.get('/admin/threads-requiring-approval', (ctx) => listThreadsRequiringApproval(ctx.db), 'admin');

  // The Ops Dashboard's desktops: which instance runs which agent's desktop (one instance: this one's running desktops).
  api.get('/admin/desktops', async (ctx) => {
    const { fleet, desktops } = deps;
    const placed = fleet ? await fleet.placements() : (desktops.list?.() ?? []).map((d) => ({ agent_id: d.agentId, instance_id: null, stale: false }));
    // Each agent by name, as the Ops Dashboard lists it, and whether its desktop sleeps (on whichever instance).
    const ids = placed.map((p) => p.agent_id);
    const rows = ids.length ? await ctx.db.query<{ id: number; name: string; sleeping: boolean }>(
      `SELECT a.id, a.name, ${SLEEPING} AS sleeping FROM agents a WHERE a.id = ANY($1::int[])`, [ids]) : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const placements = placed.map((p) => ({ ...p, agent_name: byId.get(p.agent_id)?.name ?? null, sleeping: byId.get(p.agent_id)?.sleeping ?? false }));
    return { instance_id: fleet?.instanceId ?? null, instances: fleet ? await fleet.instances() : [], placements };
  }, 'admin');

  // The Ops Dashboard's disk figures: free space of DATA_DIR, its size, and the reserve kept for the database.
  api.get('/admin/storage', async (ctx) => {
    const { free, total, reserve, low } = await deps.storage.disk.read();
    return { free_bytes: free, total_bytes: total, reserve_bytes: reserve, low };
  }, 'admin');
}
