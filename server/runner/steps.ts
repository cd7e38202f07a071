// Persists and pushes a run as it happens: one thread step per model turn (reasoning, answer,
// tool calls pending → running → done/failed) and the matching chat messages.
import type { Db } from '../db/db.ts';
import type { Bus } from '../realtime/bus.ts';
import { addMessage, type MessageRole } from '../domain/messages.ts';
import { publishStep } from '../domain/threads.ts';
import type { AssistantBlock, ModelResponse } from '../models/types.ts';
import type { StoredToolCall } from './history.ts';

const STEP_COLUMNS = 'id, thread_id, sequence, reasoning_text, assistant_text, user_text, user_files, tool_calls, created_at, updated_at';
const OUTPUT_LIMIT = 20_000;

export type LiveStep = Record<string, any> & { id: number; thread_id: number; sequence: number; tool_calls: StoredToolCall[] };

export class StepWriter {
  /** The tool_call chat message of each call, to update its status. */
  private messages = new Map<string, { id: number; data: Record<string, unknown> }>();

  constructor(private db: Db, private bus: Bus, readonly agentId: number, readonly threadId: number) {}

  /** A new step for the model's reply, and its reasoning and answer in the feed. */
  async begin(response: ModelResponse): Promise<LiveStep> {
    const content = response.content;
    const reasoning = content.filter((b) => b.type === 'thinking').map((b) => (b as { thinking: string }).thinking).filter(Boolean).join('\n\n');
    const text = content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).filter((t) => t.trim()).join('\n\n');
    const calls: StoredToolCall[] = content
      .filter((b): b is Extract<AssistantBlock, { type: 'tool_use' }> => b.type === 'tool_use')
      .map((b) => ({ id: b.id, name: b.name, status: 'pending', input: b.input }));
    const step = await this.db.tx(async (q) => {
      await q.query('SELECT id FROM threads WHERE id = $1 FOR UPDATE', [this.threadId]);
      const [{ next }] = await q.query<{ next: number }>('SELECT COALESCE(max(sequence), 0) + 1 AS next FROM thread_steps WHERE thread_id = $1', [this.threadId]);
      const [row] = await q.query<LiveStep>(
        `INSERT INTO thread_steps (thread_id, sequence, reasoning_text, assistant_text, tool_calls, model_content)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${STEP_COLUMNS}`,
        [this.threadId, next, reasoning, text, JSON.stringify(calls), JSON.stringify(content)]);
      await q.query('UPDATE threads SET updated_at = now() WHERE id = $1', [this.threadId]);
      return row;
    });
    publishStep(this.bus, step);
    if (reasoning) await this.message('reasoning', reasoning);
    if (text) await this.message('assistant', text);
    return step;
  }

  async message(role: MessageRole, text: string, extra: Record<string, unknown> = {}) {
    return addMessage(this.db, this.bus, { agent_id: this.agentId, thread_id: this.threadId, role, assistant_data: { text, ...extra } });
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
    if (call.output !== undefined && call.output.length > OUTPUT_LIMIT) call.output = call.output.slice(0, OUTPUT_LIMIT) + '…';
    await this.save(step);
    await this.callMessage(call, summary);
  }

  private async save(step: LiveStep): Promise<void> {
    const [row] = await this.db.query<{ updated_at: Date }>(
      'UPDATE thread_steps SET tool_calls = $2, updated_at = now() WHERE id = $1 RETURNING updated_at', [step.id, JSON.stringify(step.tool_calls)]);
    if (row) step.updated_at = row.updated_at;
    publishStep(this.bus, step);
  }

  /** One tool_call message per call: created when it starts running, updated when it ends. */
  private async callMessage(call: StoredToolCall, summary: string): Promise<void> {
    if (call.status === 'pending') return;
    const data = { text: summary, tool_call_id: call.id, name: call.name, status: call.status, ...(call.output !== undefined ? { output: call.output.slice(0, 2000) } : {}) };
    const known = this.messages.get(call.id);
    if (!known) {
      const message = await this.message('tool_call', summary, data);
      this.messages.set(call.id, { id: message.id, data });
      return;
    }
    const [message] = await this.db.query(
      'UPDATE chat_messages SET assistant_data = $2 WHERE id = $1 RETURNING id, agent_id, thread_id, role, user_data, assistant_data, created_at',
      [known.id, JSON.stringify(data)]);
    if (message) this.bus.publish(`agent:${this.agentId}:messages`, { type: 'updated', agent_id: this.agentId, message_id: message.id, message });
  }
}
