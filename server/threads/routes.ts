// /api/threads: every call of spec section 7 "Threads".
import { idField, idParam, type Api, type Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { agentIdParam } from '../agents/params.ts';
import { intQuery } from '../http/query.ts';
import { ownedAgentId, ownedThread } from '../agents/access.ts';
import {
  announceNewThreads, appendUserInput, appendUserInputAndSchedule, createThread, deleteThread, insertNewThreads, getThread, listSteps,
  removeFromSchedule, setScheduleSequence, setThreadRunState,
} from './threads.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';

/** The hand-backs are supervision's: a message sent right after handing back waits for the hand-back's log. */
type Deps = { bus: Bus; handbacks?: { written(agentId: number): Promise<void> } };

const MAX_STEPS_PAGE = 1000;
const THREAD_RUN_STATES = ['run', 'stop'];

export function registerThreadRoutes(api: Api, deps: Deps) {
  api.get('/threads/:id', async (ctx) => {
    const { id } = await thread(ctx);
    return getThread(ctx.db, id);
  });

  api.get('/threads/:id/steps', async (ctx) => {
    const { id } = await thread(ctx);
    const limit = intQuery(ctx.query, 'limit', 100, 1, MAX_STEPS_PAGE);
    const offset = intQuery(ctx.query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    return listSteps(ctx.db, id, limit, offset);
  });

  api.post('/threads/', async (ctx) => {
    const body = await ctx.body();
    const agentId = await ownedAgentId(ctx.db, ctx.user, idField(body.agent_id, 'agent_id', 'Agent not found'));
    ctx.status = 201;
    return createThread(ctx.db, deps.bus, agentId, {
      name: typeof body.name === 'string' ? body.name : '',
      description: typeof body.description === 'string' ? body.description : '',
    });
  });

  // Creates a thread for the agent with its first message, and schedules it.
  api.post('/threads/:id/create-new-thread', async (ctx) => {
    const agentId = await agentIdParam(ctx);
    const { text, files } = userInput(await ctx.body());
    const { db } = ctx;
    const { bus } = deps;
    await handedBack(deps, agentId);
    const created = await db.tx((q) => insertNewThreads(q, [{ agentId, text, files }]));
    announceNewThreads(bus, created);
    ctx.status = 201;
    return getThread(db, created[0].threadId);
  });

  api.post('/threads/:id/set-user-input', async (ctx) => {
    const { id, agent_id } = await thread(ctx);
    const { text, files } = userInput(await ctx.body());
    await handedBack(deps, agent_id);
    return appendUserInput(ctx.db, deps.bus, id, text, files);
  });

  api.post('/threads/:id/set-user-input-and-schedule', async (ctx) => {
    const { id, agent_id } = await thread(ctx);
    const { text, files } = userInput(await ctx.body());
    await handedBack(deps, agent_id);
    return appendUserInputAndSchedule(ctx.db, deps.bus, id, agent_id, text, files);
  });

  api.post('/threads/:id/stop', async (ctx) => {
    const { id, agent_id } = await thread(ctx);
    await setThreadRunState(ctx.db, deps.bus, id, agent_id, 'stop');
    deps.bus.publish(TOPICS.threadStop(id), { thread_id: id });
    return getThread(ctx.db, id);
  });

  api.post('/threads/:id/remove-from-schedule', async (ctx) => {
    const { id, agent_id } = await thread(ctx);
    await removeFromSchedule(ctx.db, deps.bus, id, agent_id);
    return getThread(ctx.db, id);
  });

  api.post('/threads/:id/set-schedule-sequence', async (ctx) => {
    const { id, agent_id } = await thread(ctx);
    const target = intQuery(ctx.query, 'target_sequence', NaN, 1, 1_000_000);
    if (Number.isNaN(target)) throw invalid('target_sequence', 'target_sequence is required', 'query');
    await setScheduleSequence(ctx.db, deps.bus, id, agent_id, target);
    return getThread(ctx.db, id);
  });

  api.get('/threads/:id/run-state', async (ctx) => {
    const { id } = await thread(ctx);
    const row = await getThread(ctx.db, id);
    return { target_run_state: row!.target_run_state, thread_running: row!.thread_running };
  });

  api.post('/threads/:id/run-state', async (ctx) => {
    const { id, agent_id } = await thread(ctx);
    const { target_run_state } = await ctx.body();
    if (target_run_state !== null && !THREAD_RUN_STATES.includes(target_run_state as string)) {
      throw invalid('target_run_state', `target_run_state must be one of ${THREAD_RUN_STATES.join(', ')} or null`);
    }
    await setThreadRunState(ctx.db, deps.bus, id, agent_id, target_run_state as string | null);
    if (target_run_state === 'stop') deps.bus.publish(TOPICS.threadStop(id), { thread_id: id });
    return { target_run_state };
  });

  api.delete('/threads/:id', async (ctx) => {
    const { id, agent_id } = await thread(ctx);
    await deleteThread(ctx.db, deps.bus, id, agent_id);
    return null;
  });
}

async function thread(ctx: Ctx): Promise<{ id: number; agent_id: number }> {
  const id = idParam(ctx.params.id, 'Thread not found');
  const { agent_id } = await ownedThread(ctx.db, ctx.user, id);
  return { id, agent_id };
}

/**
 * Waits while a hand-back of a take-over of the agent's desktop is being written here: a message sent right after
 * handing back comes after the person's action log in the thread (the runner also holds the agent's run until then).
 */
async function handedBack(deps: Deps, agentId: number): Promise<void> {
  await deps.handbacks?.written(agentId);
}

function userInput(body: Record<string, unknown>): { text: string; files: string[] } {
  const text = body.user_text ?? '';
  const files = body.user_files ?? [];
  if (typeof text !== 'string') throw invalid('user_text', 'user_text must be text');
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string')) throw invalid('user_files', 'user_files must be a list of file paths');
  if (!text.trim() && files.length === 0) throw invalid('user_text', 'A message needs text or at least one file');
  if (text.length > 100_000) throw invalid('user_text', 'user_text must be at most 100000 characters');
  return { text, files: files as string[] };
}
