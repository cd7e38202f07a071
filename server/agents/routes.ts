// /api/agents: list, detail, create and delete (admin), texts, email settings, uploads, run state.
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Api, Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import {
  AGENT_TEXTS, createAgent, deleteAgent, getAgent, getAgentText, listAgents, RUN_STATES, runStatus, setAgentText, setRunState as storeRunState, type RunState,
} from './agents.ts';
import { recordUpload } from './uploads.ts';
import { getGuardSettings, GUARD_DEFAULTS, GUARD_LIMITS, setGuardSettings, type GuardSettings } from '../supervision/supervision.ts';
import { receiveFile } from '../files/multipart.ts';
import { filesDir, MAX_UPLOAD_BYTES, newUploadSlot, safeFileName, storableName } from '../files/storage.ts';
import { agentIdParam } from './params.ts';
import { discardRest } from '../http/body.ts';

const MAX_TEXT = 200_000;

export function registerAgentRoutes(api: Api) {
  api.get('/agents/', (ctx) => listAgents(ctx.services.db, ctx.user.id, ctx.query.get('search') ?? ''));

  api.get('/agents/:id', async (ctx) => {
    const id = await agentIdParam(ctx);
    return (await getAgent(ctx.services.db, id))!;
  });

  api.post('/agents/', async (ctx) => {
    const { name } = await ctx.body();
    if (typeof name !== 'string' || !name.trim()) throw invalid('name', 'Name is required');
    if (name.trim().length > 100) throw invalid('name', 'Name must be at most 100 characters');
    ctx.status = 201;
    // An admin acting as a user creates the agent for that user.
    return createAgent(ctx.services.db, ctx.user.id, name.trim());
  }, 'admin');

  api.delete('/agents/:id', async (ctx) => {
    const id = await agentIdParam(ctx);
    await deleteAgent(ctx.services.db, id, filesDir(ctx.services.config.dataDir));
    await ctx.services.desktops.remove?.(id);
    return null;
  }, 'admin');

  for (const [path, column] of Object.entries(AGENT_TEXTS)) {
    api.get(`/agents/:id/${path}`, async (ctx) => {
      const id = await agentIdParam(ctx);
      return { [column]: await getAgentText(ctx.services.db, id, column) };
    });
    api.put(`/agents/:id/${path}`, async (ctx) => {
      const id = await agentIdParam(ctx);
      const value = (await ctx.body())[column];
      if (typeof value !== 'string') throw invalid(column, `${column} must be text`);
      if (value.length > MAX_TEXT) throw invalid(column, `${column} must be at most ${MAX_TEXT} characters`);
      await setAgentText(ctx.services.db, ctx.services.bus, id, column, value);
      return { [column]: value };
    });
  }

  // The runaway guard's rules of this agent (issue 19); 0 turns a rule off.
  api.get('/agents/:id/supervision', async (ctx) => {
    const id = await agentIdParam(ctx);
    return { ...(await getGuardSettings(ctx.services.db, id))!, defaults: GUARD_DEFAULTS };
  });
  api.put('/agents/:id/supervision', async (ctx) => {
    const id = await agentIdParam(ctx);
    const body = await ctx.body();
    const current = (await getGuardSettings(ctx.services.db, id))!;
    const next = { ...current };
    for (const key of Object.keys(GUARD_LIMITS) as (keyof GuardSettings)[]) {
      const value = body[key];
      if (value === undefined) continue;
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > GUARD_LIMITS[key]) {
        throw invalid(key, `${key} must be a whole number from 0 (off) to ${GUARD_LIMITS[key]}`);
      }
      next[key] = value as number;
    }
    const stored = (await setGuardSettings(ctx.services.db, id, next))!;
    ctx.services.bus.publish(`agent:${id}:changed`, { agent_id: id });
    return { ...stored, defaults: GUARD_DEFAULTS };
  });

  api.post('/agents/:id/upload_file', async (ctx) => {
    const id = await agentIdParam(ctx);
    const { db, config, storage } = ctx.services;
    try {
      // Below the disk's reserve (kept for the database) nothing new is taken: 507.
      await storage.admit(Number(ctx.req.headers['content-length']) || 0);
    } catch (err) {
      discardRest(ctx.req);
      throw err;
    }
    // What may arrive: 100 MB, or what is left of the agent's quota (everything stored for it) when that is less.
    const limit = await storage.limit(id, MAX_UPLOAD_BYTES);
    const { dir, relDir } = await newUploadSlot(config.dataDir, id);
    const partial = join(dir, '.upload');
    try {
      const file = await receiveFile(ctx.req, 'file', partial, limit);
      const name = safeFileName(file.filename);
      await rename(partial, join(dir, name));
      const file_path = `${relDir}/${name}`;
      const record = { file_path, original_name: storableName(file.filename), size: file.size, content_type: storableName(file.contentType) };
      await recordUpload(db, ctx.user.id, id, record, await storage.quota(id));
      await ctx.services.onUpload?.(id, join(dir, name), name);
      ctx.services.recordings?.dropped(id, name);
      ctx.services.handbacks?.dropped(id, name);
      return { file_path, file_name: name, size: file.size };
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  });

  api.post('/agents/:id/run-state', async (ctx) => {
    const id = await agentIdParam(ctx);
    const { state } = await ctx.body();
    if (!RUN_STATES.includes(state as RunState)) throw invalid('state', `state must be one of ${RUN_STATES.join(', ')}`);
    return { state: await setRunState(ctx, id, state as RunState) };
  });

  api.get('/agents/:id/run-state', async (ctx) => {
    const id = await agentIdParam(ctx);
    return { state: (await runStatus(ctx.services.db, id))!.target_run_state };
  });

  api.post('/agents/start', async (ctx) => {
    const id = await agentIdParam(ctx, (await ctx.body()).agent_id);
    return { state: await setRunState(ctx, id, 'run') };
  });

  api.post('/agents/stop', async (ctx) => {
    const body = await ctx.body();
    const id = await agentIdParam(ctx, body.agent_id);
    const status = (await runStatus(ctx.services.db, id))!;
    if (status.target_run_state === 'stop' && !status.agent_running) {
      return { result: 'already_stopped', message: 'The agent is not running' };
    }
    await setRunState(ctx, id, 'stop');
    // The runner always interrupts the turn in flight (force_terminate changes nothing more).
    return { result: 'stopping', message: 'Stopping the agent now' };
  });
}

async function setRunState(ctx: Ctx, id: number, state: RunState): Promise<RunState> {
  const stored = await storeRunState(ctx.services.db, ctx.services.bus, id, state);
  if (!stored) throw new HttpError(404, 'Agent not found');
  return stored;
}
