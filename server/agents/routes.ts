// /api/agents: list, detail, create and delete (admin), texts, email settings, uploads, run state.
import type { Api, Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import {
  AGENT_TEXTS, createAgent, deleteAgent, getAgent, getAgentText, listAgents, RUN_STATES, runStatus, setAgentText, setRunState as storeRunState, type RunState,
} from './agents.ts';
import { recordUpload } from './uploads.ts';
import { receiveFile } from '../files/multipart.ts';
import { filesDir, MAX_UPLOAD_BYTES, safeFileName, storableName } from '../files/storage.ts';
import { BlobSink, type BlobStore } from '../storage/index.ts';
import { uploadSlot } from './stored-files.ts';
import { agentIdParam } from './params.ts';
import { discardRest } from '../http/body.ts';
import type { Config } from '../config/index.ts';
import type { Bus } from '../realtime/bus.ts';
import type { UploadHook } from '../files/storage.ts';
import type { AgentStorage } from './storage.ts';

/**
 * What the agent routes use. The wings above (the desktop, recordings, hand-backs) come in as the few functions
 * these routes call: a deleted agent's desktop goes, a dropped file lands on it and in what is being recorded.
 */
type Deps = {
  bus: Bus;
  config: Pick<Config, 'dataDir'>;
  /** Where the files are kept (local folder or S3). */
  blobs: BlobStore;
  storage: AgentStorage;
  desktops: { remove?(agentId: number): Promise<void> };
  onUpload?: UploadHook;
  recordings?: { dropped(agentId: number, name: string): void };
  handbacks?: { dropped(agentId: number, name: string): void };
};

const MAX_TEXT = 200_000;

export function registerAgentRoutes(api: Api, deps: Deps) {
  api.get('/agents/', (ctx) => listAgents(ctx.db, ctx.user.id, ctx.query.get('search') ?? ''));

  api.get('/agents/:id', async (ctx) => {
    const id = await agentIdParam(ctx);
    return (await getAgent(ctx.db, id))!;
  });

  api.post('/agents/', async (ctx) => {
    const { name } = await ctx.body();
    if (typeof name !== 'string' || !name.trim()) throw invalid('name', 'Name is required');
    if (name.trim().length > 100) throw invalid('name', 'Name must be at most 100 characters');
    ctx.status = 201;
    // An admin acting as a user creates the agent for that user.
    return createAgent(ctx.db, ctx.user.id, name.trim());
  }, 'admin');

  api.delete('/agents/:id', async (ctx) => {
    const id = await agentIdParam(ctx);
    await deleteAgent(ctx.db, id, deps.blobs, filesDir(deps.config.dataDir));
    await deps.desktops.remove?.(id);
    return null;
  }, 'admin');

  for (const [path, column] of Object.entries(AGENT_TEXTS)) {
    api.get(`/agents/:id/${path}`, async (ctx) => {
      const id = await agentIdParam(ctx);
      return { [column]: await getAgentText(ctx.db, id, column) };
    });
    api.put(`/agents/:id/${path}`, async (ctx) => {
      const id = await agentIdParam(ctx);
      const value = (await ctx.body())[column];
      if (typeof value !== 'string') throw invalid(column, `${column} must be text`);
      if (value.length > MAX_TEXT) throw invalid(column, `${column} must be at most ${MAX_TEXT} characters`);
      await setAgentText(ctx.db, deps.bus, id, column, value);
      return { [column]: value };
    });
  }

  api.post('/agents/:id/upload_file', async (ctx) => {
    const id = await agentIdParam(ctx);
    const { db } = ctx;
    const { blobs, storage } = deps;
    try {
      // Below the disk's reserve (kept for the database) nothing new is taken: 507.
      await storage.admit(Number(ctx.req.headers['content-length']) || 0);
    } catch (err) {
      discardRest(ctx.req);
      throw err;
    }
    // What may arrive: 100 MB, or what is left of the agent's quota (everything stored for it) when that is less.
    const limit = await storage.limit(id, MAX_UPLOAD_BYTES);
    const slot = uploadSlot(id);
    let name = '';
    let sink: BlobSink | null = null;
    try {
      // Streamed into the store as it arrives: a put that fails (503, 507) or a body refused (413) leaves nothing.
      // The request's length, framing and all, says about how long the file is (S3 begins a large one at once).
      const expectedBytes = Number(ctx.req.headers['content-length']) || undefined;
      const file = await receiveFile(ctx.req, 'file', (part) => {
        name = safeFileName(part.filename);
        const options = { contentType: storableName(part.contentType), expectedBytes, keepLocalCopy: !!deps.onUpload };
        return (sink = new BlobSink(blobs, `${slot}/${name}`, options));
      }, limit);
      const file_path = `${slot}/${name}`;
      const record = { file_path, original_name: storableName(file.filename), size: file.size, content_type: storableName(file.contentType) };
      await recordUpload(db, ctx.user.id, id, record, await storage.quota(id));
      // From the bytes as they came (a bucket's object is not read back whole for it).
      const onDesktop = deps.onUpload ? await sink!.withLocalCopy((path) => deps.onUpload!(id, path, name)).catch(() => null) : null;
      deps.recordings?.dropped(id, name);
      deps.handbacks?.dropped(id, name);
      // desktop_file: where the copy landed on the agent's desktop (a name taken there gets a number), or null.
      return { file_path, file_name: name, size: file.size, desktop_file: onDesktop && `~/Desktop/${onDesktop}` };
    } catch (err) {
      await (sink as BlobSink | null)?.discard();
      await blobs.deletePrefix(`${slot}/`).catch(() => {});
      throw err;
    }
  });

  api.post('/agents/:id/run-state', async (ctx) => {
    const id = await agentIdParam(ctx);
    const { state } = await ctx.body();
    if (!RUN_STATES.includes(state as RunState)) throw invalid('state', `state must be one of ${RUN_STATES.join(', ')}`);
    return { state: await setRunState(deps, ctx, id, state as RunState) };
  });

  api.get('/agents/:id/run-state', async (ctx) => {
    const id = await agentIdParam(ctx);
    return { state: (await runStatus(ctx.db, id))!.target_run_state };
  });

  api.post('/agents/start', async (ctx) => {
    const id = await agentIdParam(ctx, (await ctx.body()).agent_id);
    return { state: await setRunState(deps, ctx, id, 'run') };
  });

  api.post('/agents/stop', async (ctx) => {
    const body = await ctx.body();
    const id = await agentIdParam(ctx, body.agent_id);
    const status = (await runStatus(ctx.db, id))!;
    if (status.target_run_state === 'stop' && !status.agent_running) {
      return { result: 'already_stopped', message: 'The agent is not running' };
    }
    await setRunState(deps, ctx, id, 'stop');
    // The runner always interrupts the turn in flight (force_terminate changes nothing more).
    return { result: 'stopping', message: 'Stopping the agent now' };
  });
}

async function setRunState(deps: Deps, ctx: Ctx, id: number, state: RunState): Promise<RunState> {
  const stored = await storeRunState(ctx.db, deps.bus, id, state);
  if (!stored) throw new HttpError(404, 'Agent not found');
  return stored;
}
