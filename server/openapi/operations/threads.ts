// The threads wing: threads and their steps (spec section 7 "Threads"), the agent's chat feed ("Messages"), and the
// realtime routes: the feeds' WebSockets, the thread hub and its negotiation.
import {
  arr, bool, extend, id, input, int, json, noContent, nullable, obj, oneOfEnum, query, ref, str, type Answer, type Operation, type WingTable,
} from '../schema.ts';
import { STEP } from '../components.ts';

const USER_INPUT = input({
  user_text: str({ maxLength: 100_000, description: 'The words; may be empty when files come' }),
  user_files: arr(str(), { description: 'Paths from upload_file' }),
});
const THREAD_ANSWER = json(ref('Thread'));
const STEP_ANSWER = json(ref('WrittenStep'), 'The step written');
const SOCKET: Answer = {
  description: 'Switching Protocols: the socket is open. A refusal after the upgrade (401, 403, 404 …) closes it with 4000 + the status; '
    + 'an unavailable database with 1013.',
};

function feed(what: string, frames: string): Operation {
  return {
    summary: `The agent's ${what} as they happen (WebSocket)`,
    description: `JSON frames: ${frames}. The socket lives as long as its token and sign-in session.`,
    responses: { 101: SOCKET },
  };
}

export const THREADS: WingTable = {
  tag: 'threads',
  description: 'Threads, steps, the chat feed and its realtime sockets.',
  schemas: {
    StepPage: obj({ steps: arr(ref('Step'), { description: 'Oldest first' }), total_count: int({ minimum: 0 }) }),
    WrittenStep: extend(STEP, { agent_id: id() }),
    MessagePage: obj({ messages: arr(ref('Message'), { description: 'Newest first' }), total_count: int({ minimum: 0 }), page: int(), page_size: int() }),
  },
  operations: {
    'GET /threads/:id': { summary: 'A thread', responses: { 200: THREAD_ANSWER } },
    'GET /threads/:id/steps': {
      summary: "A page of the thread's steps: the newest `limit` after skipping `offset` newer ones, oldest first",
      query: {
        limit: query(int({ minimum: 1, maximum: 1000, default: 100 }), 'Steps per page'),
        offset: query(int({ minimum: 0, default: 0 }), 'Newer steps to skip'),
      },
      responses: { 200: json(ref('StepPage')) },
    },
    'POST /threads/': {
      summary: 'Make an empty thread for an agent',
      body: input({ agent_id: { type: ['integer', 'string'] }, name: str({ maxLength: 200 }), description: str({ maxLength: 2000 }) }, ['agent_id']),
      responses: { 201: json(ref('Thread'), 'Made') },
    },
    'POST /threads/:id/create-new-thread': {
      summary: "Make a thread with the user's first message and queue it (the path's id is the agent's)",
      body: USER_INPUT,
      responses: { 201: json(ref('Thread'), 'Made and queued') },
    },
    'POST /threads/:id/set-user-input': { summary: "Add the user's words to the thread", body: USER_INPUT, responses: { 200: STEP_ANSWER } },
    'POST /threads/:id/set-user-input-and-schedule': {
      summary: "Add the user's words and queue the thread (answers a help request)", body: USER_INPUT, responses: { 200: STEP_ANSWER },
    },
    'POST /threads/:id/stop': { summary: 'Stop the thread', responses: { 200: THREAD_ANSWER } },
    'POST /threads/:id/remove-from-schedule': { summary: "Take the thread out of its agent's queue", responses: { 200: THREAD_ANSWER } },
    'POST /threads/:id/set-schedule-sequence': {
      summary: "Move the thread to a place in its agent's queue",
      query: { target_sequence: query(int({ minimum: 1, maximum: 1_000_000 }), 'The place (1 runs next)', true) },
      responses: { 200: THREAD_ANSWER },
    },
    'GET /threads/:id/run-state': {
      summary: "The thread's run state", responses: { 200: json(obj({ target_run_state: nullable(oneOfEnum(['run', 'stop'])), thread_running: bool() })) },
    },
    'POST /threads/:id/run-state': {
      summary: "Set the thread's run state",
      body: input({ target_run_state: nullable(oneOfEnum(['run', 'stop'])) }, ['target_run_state']),
      responses: { 200: json(obj({ target_run_state: nullable(oneOfEnum(['run', 'stop'])) })) },
    },
    'DELETE /threads/:id': { summary: 'Delete the thread with its steps', responses: { 204: noContent('Deleted') } },

    'GET /messages/agent/:id': {
      summary: "A page of the agent's chat messages, newest first",
      query: { page: query(int({ minimum: 1, default: 1 }), 'From 1'), page_size: query(int({ minimum: 1, maximum: 500, default: 50 }), 'Messages per page') },
      responses: { 200: json(ref('MessagePage')) },
    },
    'GET /messages/agent/:id/latest': {
      summary: "The agent's newest chat messages, newest first",
      query: { limit: query(int({ minimum: 1, maximum: 500, default: 20 }), 'How many') },
      responses: { 200: json(arr(ref('Message'))) },
    },
    'WS /messages/agent/:id/ws': feed('chat messages', '{type: created|updated|deleted, agent_id, message_id, message}'),
    'WS /actions/agent/:id/ws': feed('desktop actions', "{kind, x, y, source: 'agent'}, where the agent acts on its desktop"),
    'WS /realtime/client/hubs/:hub': {
      summary: 'The thread hub (WebSocket, subprotocol json.webpubsub.azure.v1)',
      description: 'Authorised by the access token POST /realtime/negotiate gave, not by a sign-in token; then joinGroup the group it named.',
      path: { hub: { schema: { const: 'thread_hub' }, description: 'The hub' } },
      query: { access_token: query(str(), 'The negotiated token', true) },
      headers: { 'Sec-WebSocket-Protocol': { schema: { const: 'json.webpubsub.azure.v1' }, required: true, description: 'The subprotocol' } },
      responses: { 101: SOCKET },
      errors: [400],
    },
    'POST /realtime/negotiate': {
      summary: "A hub address with a short-lived token that may join exactly that thread's group",
      body: input({ thread_id: { type: ['integer', 'string'] }, hub: { const: 'thread_hub' } }, ['thread_id']),
      responses: { 200: json(obj({ url: str({ description: 'ws(s)://…/api/realtime/client/hubs/thread_hub?access_token=…' }), group: str() })) },
    },
  },
};
