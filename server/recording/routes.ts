// /api/screenshare (spec §7): start and stop recording a demonstration on the agent's desktop, and the
// recording's audio (a raw body, X-Session-Id, content type audio/ogg unless said otherwise). Only the
// agent's owner records it (an admin by impersonating); other agents and sessions answer 404.
import { idField, idParam, type Api, type Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { agentThread, ownAgent } from './store.ts';
import type { RecordingRow } from './store.ts';
import type { Recordings } from './recordings.ts';

/** Recording is off on a server without it (no recordings). */
type Deps = { recordings?: Recordings };

const AUDIO_TYPE = /^(audio|video)\/[a-z0-9.+-]+(\s*;.*)?$/i;

export function registerScreenshareRoutes(api: Api, deps: Deps) {
  /** {agent_id, thread_id?}: the summary goes to that thread (else a new one). */
  api.post('/screenshare/start-recording', async (ctx) => {
    const body = await ctx.body();
    const agentId = await ownedAgent(ctx, body.agent_id);
    const threadId = body.thread_id === undefined || body.thread_id === null
      ? null
      : await agentThread(ctx.db, agentId, idField(body.thread_id, 'thread_id', 'Thread not found'));
    return present(await recordings(deps).start(ctx.db, ctx.user.id, agentId, threadId));
  });

  /** {agent_id, session_id?}: stops that session, else the caller's running recording of the agent. */
  api.post('/screenshare/stop-recording', async (ctx) => {
    const body = await ctx.body();
    const agentId = await ownedAgent(ctx, body.agent_id);
    if (body.session_id !== undefined && typeof body.session_id !== 'string') throw invalid('session_id', 'session_id must be text');
    return present(await recordings(deps).stop(ctx.db, ctx.user.id, agentId, body.session_id || undefined));
  });

  api.post('/screenshare/audio-final', async (ctx) => {
    const sessionId = ctx.req.headers['x-session-id'];
    if (typeof sessionId !== 'string' || !sessionId.trim()) {
      ctx.req.resume();
      throw new HttpError(422, [{ loc: ['header', 'X-Session-Id'], msg: 'X-Session-Id is required', type: 'missing' }]);
    }
    // Spec §7: audio/ogg unless said otherwise; a bare octet-stream says nothing either.
    const given = ctx.req.headers['content-type']?.trim();
    const type = !given || /^application\/octet-stream\b/i.test(given) ? 'audio/ogg' : given;
    if (!AUDIO_TYPE.test(type)) {
      ctx.req.resume();
      throw new HttpError(415, 'The body must be audio (audio/ogg or audio/webm)');
    }
    ctx.status = 202;
    try {
      return await recordings(deps).receiveAudio(ctx.user.id, sessionId.trim(), ctx.req, type.slice(0, 100));
    } catch (err) {
      ctx.req.resume(); // a refused session never reads the body: drain it so the answer gets through
      throw err;
    }
  });
}

function recordings(deps: Deps): Recordings {
  const service = deps.recordings;
  if (!service) throw new HttpError(503, 'Recording is not available on this server');
  return service;
}

async function ownedAgent(ctx: Ctx, raw: unknown): Promise<number> {
  if (raw === undefined || raw === null) throw invalid('agent_id', 'agent_id is required');
  const id = idField(raw, 'agent_id', 'Agent not found');
  await ownAgent(ctx.db, ctx.user.id, id);
  return id;
}

function present(row: RecordingRow) {
  const started = new Date(row.started_at);
  const stopped = row.stopped_at ? new Date(row.stopped_at) : null;
  return {
    session_id: row.session_id,
    agent_id: row.agent_id,
    thread_id: row.thread_id,
    is_recording: !stopped,
    started_at: started.toISOString(),
    stopped_at: stopped?.toISOString() ?? null,
    duration_seconds: stopped ? Math.round((stopped.getTime() - started.getTime()) / 1000) : null,
    auto_stopped: row.auto_stopped,
  };
}
