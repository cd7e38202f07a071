// Every topic of the bus with the payload it carries. publish and subscribe take a Topic<P>, so a free string or a
// payload of the wrong shape does not compile. The strings are the wire: with PostgreSQL they travel between the
// instances (bus.ts), so a topic's name and its payload's fields stay as they are.
declare const carries: unique symbol;
/** A topic's name, carrying (for the compiler only) the type of what is published on it. */
export type Topic<P> = string & { readonly [carries]: P };
const topic = <P>(name: string) => name as Topic<P>;

/** An agent's row changed (its views refetch it); `target_run_state`: its new run state, when that is what changed. */
export type AgentChange = { agent_id: number; target_run_state?: string };
/** A chat message created or updated (the agent's message feed). */
export type MessageEvent = { type: 'created' | 'updated'; agent_id: number; message_id: number; message: object };
/** Where the agent acted on its desktop, as fractions of the screen (the live view's cursor). */
export type ActionEvent = { kind: string; x: number; y: number; source: 'agent' };
/** The thread itself changed: it waits for a person (`needs_help`), or no more (null); without it, something else did (a fill's approval). */
export type ThreadChange = { id: number; needs_help?: object | null };
/** Control of a desktop between instances (desktop/view/gateway.ts). */
export type ControlNote = { from: string; agent_id: number; session_id: string | null };
export type ControlRequest = { from: string; request: string; agent_id: number; session_id: string; user_id: number; take: boolean };
export type ControlReply = { request: string; result?: { session_id: string; control: boolean }; status?: number; detail?: string };
/** A recording's input between instances (recording/input-relay.ts); `event` is a desktop input as the gateway saw it. */
export type RecordingActive = { from: string; agent_id: number; active: boolean };
export type RecordingInput = { from: string; agent_id: number; event: object; seq: number };
export type RecordingDropped = { from: string; agent_id: number; name: string };

export const TOPICS = {
  agentChanged: (agentId: number) => topic<AgentChange>(`agent:${agentId}:changed`),
  agentMessages: (agentId: number) => topic<MessageEvent>(`agent:${agentId}:messages`),
  agentActions: (agentId: number) => topic<ActionEvent>(`agent:${agentId}:actions`),
  /** A step of the thread, inserted or replaced (the hub's `step` frames). */
  threadSteps: (threadId: number) => topic<Record<string, unknown>>(`thread:${threadId}:steps`),
  threadChanged: (threadId: number) => topic<ThreadChange>(`thread:${threadId}:thread`),
  /** Stop the thread's run, wherever it runs. */
  threadStop: (threadId: number) => topic<{ thread_id: number }>(`thread:${threadId}:stop`),
  /** A thread was deleted: every instance removes what it kept of it on disk (its runs' recordings). */
  threadDeleted: topic<{ thread_id: number; agent_id: number }>('thread:deleted'),
  /** Work for the runners: an agent may run (again). */
  runnerWake: topic<{ agent_id: number }>('runner:wake'),
  /** Webhook deliveries or push notifications were queued: the deliverers (server/webhooks) and push senders (server/push) look. */
  webhooksQueued: topic<Record<string, never>>('webhooks:queued'),
  /** Outbound mail was queued: the sender looks. */
  mailQueued: topic<{ id: number }>('mail:queued'),
  /** A sign-in session ended: its sockets close, on every instance. */
  sessionEnded: (sessionId: number) => topic<{ session_id: number }>(`session:${sessionId}:ended`),
  desktopControlNote: topic<ControlNote>('desktop:control'),
  desktopControlRequest: topic<ControlRequest>('desktop:control-request'),
  desktopControlReply: topic<ControlReply>('desktop:control-reply'),
  recordingActive: topic<RecordingActive>('recording:active'),
  recordingInput: topic<RecordingInput>('recording:input'),
  recordingDropped: topic<RecordingDropped>('recording:dropped'),
};

/** The hub's group `thread:<id>` (realtime/pubsub-hub.ts): the thread whose steps and changes it carries, or null. */
export function threadOfGroup(group: string): number | null {
  const m = /^thread:(\d+)$/.exec(group);
  return m ? Number(m[1]) : null;
}
