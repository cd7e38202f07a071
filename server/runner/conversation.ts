// The model ⇄ tools loop of one run (and of a sub-agent inside it): ask the model, write its turn
// as a step, run its tool calls one by one, send the results back, until it answers without tools.
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import type { Log } from '../ops/log.ts';
import {
  DEFAULT_CONTEXT_TOKENS, ModelError, isAbort,
  type AssistantBlock, type Message, type ModelProvider, type ModelRequest, type ToolResultBlock,
} from '../models/types.ts';
import { toolSet } from './tools/index.ts';
import { ToolInputError, type AgentInfo, type ToolContext } from './tools/types.ts';
import { fitContext, INTERRUPTED_RESULT, keepRecentImages, type StoredToolCall } from './history.ts';
import { recordTrace } from '../traces/traces.ts';
import type { LiveStep, StepWriter } from './steps.ts';
import { RunFailure, RunPaused, RunStopped, stopOf } from './errors.ts';
import type { RunawayGuard, Trip } from '../supervision/guard.ts';

export type LoopDeps = {
  db: Db;
  bus: Bus;
  log: Log;
  provider: ModelProvider;
  agent: AgentInfo;
  threadId: number;
  /** The run (issue 44): its model calls carry its id. */
  runId?: number | null;
  system: string;
  signal: AbortSignal;
  computer: ToolContext['computer'];
  mailDomain: string;
  smtpUtf8?: boolean;
  writer: StepWriter;
  maxTurns: number;
  /** Before every model call: throws RunStopped or RunFailure (stop requested, spend limit …). */
  checkpoint: () => Promise<void>;
  /**
   * Right before the call: reserves what it may cost against the owner's limit (RunFailure when it may not
   * start); the result settles the reservation once the call's trace is written.
   */
  reserve: (request: ModelRequest) => Promise<() => Promise<void>>;
  /** Main conversation only: user text that arrived while the run was going. */
  newInput?: () => Promise<string[]>;
  /** The runaway guard of the run (sub-agents share their parent's): it pauses the run when a rule is crossed. */
  guard?: RunawayGuard | null;
  /** The agent's granted credentials and their fill (issue 45); absent or none granted: no fill_credential tool. */
  credentials?: ToolContext['credentials'];
};

const MAX_INPUT_ERRORS = 5;
const KEEP_IMAGES = 3;

/**
 * Runs the loop on `conversation` (mutated as it grows) and returns the final answer's text.
 * `sub` makes it a sub-agent: its calls are listed under the parent's step and it gets no sub_agent tool.
 */
export async function converse(
  deps: LoopDeps,
  conversation: Message[],
  traceName: string,
  sub: { parentStep: LiveStep; prefix: string } | null = null,
): Promise<string> {
  const { tools, definitions } = toolSet({ computer: deps.computer !== null, subAgents: sub === null, credentials: deps.credentials?.granted ?? [] });
  const display = deps.computer ? { width: deps.computer.width, height: deps.computer.height } : null;
  let inputErrors = 0;
  let subCount = 0;

  for (let turn = 1; turn <= deps.maxTurns; turn++) {
    await deps.checkpoint();
    for (const text of (await deps.newInput?.()) ?? []) addUserText(conversation, text);

    // Room for the system prompt, the tool definitions and the answer: the messages get 70% of the window.
    const max = Math.floor((deps.provider.contextTokens ?? DEFAULT_CONTEXT_TOKENS) * 0.7);
    const fitted = fitContext(conversation, { max, target: Math.floor(max / 2), keepImages: KEEP_IMAGES });
    if (fitted !== conversation) conversation.splice(0, conversation.length, ...fitted);
    const request = { system: deps.system, messages: keepRecentImages(conversation, KEEP_IMAGES), tools: definitions, computer: display };
    const trip = deps.guard?.beforeCall();
    if (trip) await pause(deps, traceName, trip);
    let result;
    const settle = await deps.reserve(request);
    try {
      result = await deps.provider.complete(request, deps.signal);
    } catch (err) {
      await settle(); // a failed call costs nothing
      if (deps.signal.aborted) throw stopOf(deps.signal);
      const failed = err instanceof ModelError ? err : null;
      await recordTrace(deps.db, {
        owner_id: deps.agent.owner_id, agent_id: deps.agent.id, thread_id: deps.threadId, run_id: deps.runId, thread_name: traceName,
        model: deps.provider.model,
        usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 }, cost: 0, latencyMs: failed?.latencyMs ?? 0,
        parameters: failed?.parameters ?? { provider: deps.provider.name, model: deps.provider.model },
        request: failed?.request ?? null,
        response: { error: (err as Error).message, status: failed?.status ?? null, body: failed?.response ?? null },
      }).catch((e) => deps.log.error(`runner: trace of a failed call not stored: ${e.message}`));
      if (isAbort(err)) throw new RunFailure('The model call was aborted unexpectedly', { cause: err });
      throw new RunFailure(`Model error: ${(err as Error).message}`, { cause: err });
    }
    const response = result.response;
    await recordTrace(deps.db, {
      owner_id: deps.agent.owner_id, agent_id: deps.agent.id, thread_id: deps.threadId, run_id: deps.runId, thread_name: traceName,
      model: response.model || deps.provider.model, usage: response.usage, cost: result.cost, latencyMs: result.latencyMs,
      parameters: result.parameters, request: result.request, response: result.traceResponse ?? response,
    }).finally(settle);
    deps.guard?.called(result.cost);
    conversation.push({ role: 'assistant', content: response.content });
    const uses = response.content.filter((b): b is Extract<AssistantBlock, { type: 'tool_use' }> => b.type === 'tool_use');

    let step: LiveStep;
    let callId = (id: string) => id;
    if (sub) {
      step = sub.parentStep;
      const prefix = `${sub.prefix}.${++subCount}.`;
      callId = (id) => prefix + id;
      const calls = uses.map((u): StoredToolCall => ({ id: callId(u.id), name: `sub_agent/${u.name}`, status: 'pending', input: u.input, sub: true }));
      await deps.writer.addCalls(step, calls);
    } else {
      step = await deps.writer.begin(response);
    }

    if (!uses.length) {
      if (response.stop_reason === 'pause_turn') continue;
      return response.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n\n').trim();
    }

    const results: ToolResultBlock[] = [];
    let asked: string | null = null;
    let tripped: Trip | null = null;
    for (const use of uses) {
      if (deps.signal.aborted) throw stopOf(deps.signal);
      const tool = tools.get(use.name);
      const describe = tool ? tool.describe(use.input) : use.name;
      const id = callId(use.id);
      await deps.writer.setCall(step, id, { status: 'running' }, describe);
      const ctx: ToolContext = {
        db: deps.db, bus: deps.bus, agent: deps.agent, threadId: deps.threadId, signal: deps.signal,
        mailDomain: deps.mailDomain, smtpUtf8: deps.smtpUtf8, computer: deps.computer, credentials: deps.credentials,
        runSubAgent: sub ? undefined : (task) => {
          const title = `Sub: ${task.length > 60 ? task.slice(0, 59) + '…' : task}`;
          return converse({ ...deps, newInput: undefined }, [{ role: 'user', content: task }], title, { parentStep: step, prefix: use.id });
        },
      };
      try {
        if (!tool) throw new ToolInputError(`There is no tool named "${use.name}"`);
        if ('invalid_arguments' in use.input) throw new ToolInputError('The tool arguments were not valid JSON');
        const out = await untilAborted(tool.run(use.input, ctx), deps.signal);
        const content: ToolResultBlock['content'] = [{ type: 'text', text: out.text }];
        if (out.image) content.push({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: out.image.toString('base64') } });
        results.push({ type: 'tool_result', tool_use_id: use.id, content });
        await deps.writer.setCall(step, id, { status: 'done', output: out.text }, describe);
        inputErrors = 0;
        if (out.pause) asked ??= out.pause.question;
        if (use.name === 'computer') tripped ??= deps.guard?.acted(use.input, out.image) ?? null;
      } catch (err) {
        if (err instanceof RunPaused) throw err; // from a sub-agent's guard
        if (deps.signal.aborted || err instanceof RunStopped) {
          await deps.writer.setCall(step, id, { status: 'failed', output: INTERRUPTED_RESULT, is_error: true }, describe).catch(() => {});
          throw deps.signal.aborted ? stopOf(deps.signal) : err;
        }
        const message = err instanceof Error ? err.message : String(err);
        await deps.writer.setCall(step, id, { status: 'failed', output: message, is_error: true }, describe);
        if (err instanceof RunFailure) throw err; // from a sub-agent
        if (!(err instanceof ToolInputError)) throw new RunFailure(`The ${use.name} tool failed: ${message}`, { cause: err });
        results.push({ type: 'tool_result', tool_use_id: use.id, content: message, is_error: true });
        if (++inputErrors >= MAX_INPUT_ERRORS) throw new RunFailure(`The model made ${MAX_INPUT_ERRORS} invalid tool calls in a row; the last: ${message}`);
      }
    }
    conversation.push({ role: 'user', content: results });
    // The calls of this turn are stored with their results; then the run waits for a person.
    if (asked !== null) throw new RunPaused(asked, 'asked');
    if (tripped) await pause(deps, traceName, tripped);
  }
  throw new RunFailure(`Stopped after ${deps.maxTurns} model calls without a final answer`);
}

/**
 * The runaway guard tripped: a note in the traces and an answer in the thread say why (the model reads it too
 * when the run goes on), then the run pauses with the reason as its question.
 */
async function pause(deps: LoopDeps, traceName: string, trip: Trip): Promise<never> {
  const text = `Paused by the runaway guard. ${trip.question}`;
  await recordTrace(deps.db, {
    owner_id: deps.agent.owner_id, agent_id: deps.agent.id, thread_id: deps.threadId, run_id: deps.runId, thread_name: traceName, model: deps.provider.model,
    usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 }, cost: 0, latencyMs: 0,
    parameters: { paused: trip.reason, guard: 'runaway' }, request: null, response: { paused: trip.reason, question: trip.question },
  }).catch((e) => deps.log.error(`runner: trace of a pause not stored: ${e.message}`));
  await deps.writer.begin({
    id: 'guard', model: deps.provider.model, role: 'assistant', content: [{ type: 'text', text }], stop_reason: 'end_turn',
    usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
  });
  throw new RunPaused(trip.question, trip.reason);
}

function addUserText(conversation: Message[], text: string): void {
  const last = conversation[conversation.length - 1];
  if (last?.role === 'user') {
    last.content = [...(typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content), { type: 'text', text }];
  } else conversation.push({ role: 'user', content: text });
}

/** Settles with the promise, or rejects as soon as the signal aborts (the work itself gets the signal too). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(stopOf(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopOf(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}
