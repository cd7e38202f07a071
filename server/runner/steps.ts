// Persists and pushes a run as it happens: one thread step per model turn (reasoning, answer,
// tool calls pending → running → done/failed) and the matching chat messages.
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { addMessage, updateAssistantData, type MessageRole } from '../threads/messages.ts';
import { insertModelStep, saveToolCalls } from '../threads/steps.ts';
import { publishStep } from '../threads/threads.ts';
import type { AssistantBlock, ModelResponse } from '../models/types.ts';
import type { StoredToolCall } from './history.ts';
import { TOPICS } from '../realtime/topics.ts';

const OUTPUT_LIMIT = 20_000;

export type LiveStep = Record<string, any> & { id: number; thread_id: number; sequence: number; tool_calls: StoredToolCall[] };

export class StepWriter {
  /** The tool_call chat message of each call, to update its status. */
  private messages = new Map<string, { id: number; data: Record<string, unknown> }>();

  /** The run writing (issue 44): set once the run is opened; its steps and messages carry it. */
  runId: number | null = null;

  constructor(private db: Db, private bus: Bus, readonly agentId: number, readonly threadId: number) {}

  /** A new step for the model's reply, and its reasoning and answer in the feed. */
  async begin(response: ModelResponse): Promise<LiveStep> {
    const content = response.content;
    const reasoning = content.filter((b) => b.type === 'thinking').map((b) => (b as { thinking: string }).thinking).filter(Boolean).join('\n\n');
    const text = content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).filter((t) => t.trim()).join('\n\n');
    const calls: StoredToolCall[] = content
      .filter((b): b is Extract<AssistantBlock, { type: 'tool_use' }> => b.type === 'tool_use')
      .map((b) => ({ id: b.id, name: b.name, status: 'pending', input: b.input }));
    const step = await insertModelStep<LiveStep>(this.db, this.threadId, { reasoning, text, toolCalls: calls, content }, this.runId);
    publishStep(this.bus, step);
    if (reasoning) await this.message('reasoning', reasoning);
    if (text) await this.message('assistant', text);
    return step;
  }

  async message(role: MessageRole, text: string, extra: Record<string, unknown> = {}) {
    return addMessage(this.db, this.bus, { agent_id: this.agentId, thread_id: this.threadId, role, assistant_data: { text, ...extra }, run_id: this.runId });
  }

  /** Adds calls to a step (a sub-agent's calls go under its parent's step). */
  async addCalls(step: LiveStep, calls: StoredToolCall[]): Promise<void> {
    step.tool_calls = [...step.tool_calls, ...calls];
    await this.save(step);
  }

  async setCall(step: LiveStep, id: string, patch: Partial<StoredToolCall>, summary: string): Promise<void> {
    const call = step.tool_calls.find((c) => c.id === id);
    if (!call) return;
    Object.assign(call, patch);
    // When the call ended: a replay's marker for it, at the screen it left (issue 44).
    if (patch.status === 'done' || patch.status === 'failed') call.done_at ??= Date.now();
    if (call.output !== undefined && call.output.length > OUTPUT_LIMIT) call.output = call.output.slice(0, OUTPUT_LIMIT) + '…';
    await this.save(step);
    await this.callMessage(call, summary);
  }

  private async save(step: LiveStep): Promise<void> {
    const updatedAt = await saveToolCalls(this.db, step.id, step.tool_calls);
    if (updatedAt) step.updated_at = updatedAt;
    publishStep(this.bus, step);
  }

  /** One tool_call message per call: created when it starts running, updated when it ends. */
  private async callMessage(call: StoredToolCall, summary: string): Promise<void> {
    if (call.status === 'pending') return;
    const data = {
      text: summary, tool_call_id: call.id, name: call.name, status: call.status,
      ...(call.output !== undefined ? { output: call.output.slice(0, 2000) } : {}),
    };
    const known = this.messages.get(call.id);
    if (!known) {
      const message = await this.message('tool_call', summary, data);
      this.messages.set(call.id, { id: message.id, data });
      return;
    }
    const message = await updateAssistantData(this.db, known.id, data);
    if (message) this.bus.publish(TOPICS.agentMessages(this.agentId), { type: 'updated', agent_id: this.agentId, message_id: message.id, message });
  }
}
