// The agents wing: the list and detail shapes of spec section 3, creating and deleting agents (admins), their three
// texts, uploads to them, their files (uploads and what their desktops hold), and their run state.
import { THREAD } from '../components.ts';
import {
  arr, binary, bool, extend, id, input, int, json, noContent, nullable, obj, oneOfEnum, query, ref, str, time, type Operation, type Schema, type WingTable,
} from '../schema.ts';

const RUN_STATE = oneOfEnum(['run', 'run_all', 'stop'], { description: 'run: the queue head once; run_all: the whole queue; stop' });

const SUMMARY = obj({
  id: id(), owner_id: id(), name: str(), file_path: nullable(str()), agent_running: bool(), target_run_state: RUN_STATE,
  cua_client_connected: bool(), running_state: str(), updated_at: time(), created_at: time(),
  email_prefix: nullable(str()), email_accept_from_addresses: nullable(arr(str())),
  number_scheduled_threads: int({ minimum: 0 }), number_threads_requiring_approval: int({ minimum: 0 }),
  number_threads_needing_help: int({ minimum: 0, description: 'Threads waiting for a person (a help request or a fill to approve)' }),
  desktop_sleeping: bool({ description: 'Its desktop is asleep (frozen while idle); anything that needs it wakes it' }),
  screenshot_url: nullable(str({ description: '/api/agents/{id}/screenshot?v=<ms>, or null before the first screenshot' })),
});

const TEXTS = { 'system-prompt': 'system_prompt', notes: 'notes', instructions: 'instructions' } as const;

function texts(): Record<string, Operation> {
  const out: Record<string, Operation> = {};
  for (const [path, field] of Object.entries(TEXTS)) {
    const body: Schema = obj({ [field]: str({ maxLength: 200_000 }) });
    out[`GET /agents/:id/${path}`] = { summary: `The agent's ${field.replace('_', ' ')}`, responses: { 200: json(body) } };
    out[`PUT /agents/:id/${path}`] = {
      summary: `Replace the agent's ${field.replace('_', ' ')}`, body: input({ [field]: str({ maxLength: 200_000 }) }, [field]), responses: { 200: json(body) },
    };
  }
  return out;
}

const AGENT_REF = { type: ['integer', 'string'], description: 'The agent (an id, or its digits)' };
const AGENT_ID = input({ agent_id: AGENT_REF }, ['agent_id']);

export const AGENTS: WingTable = {
  tag: 'agents',
  description: 'Agents: the list, their detail with threads, texts, uploads and run state.',
  schemas: {
    AgentSummary: SUMMARY,
    Agent: extend(SUMMARY, { system_prompt: str(), notes: str(), instructions: str(), threads: arr(ref('AgentThread')) }),
    AgentThread: { ...THREAD, required: [...(THREAD.required as string[]), 'credential_approval', 'held_reason'] },
  },
  operations: {
    'GET /agents/': {
      summary: "The caller's agents",
      query: { search: query(str(), 'Part of the name (case-insensitive)') },
      responses: { 200: json(arr(ref('AgentSummary'))) },
    },
    'GET /agents/:id': { summary: 'An agent with its threads (newest first)', responses: { 200: json(ref('Agent')) } },
    'POST /agents/': {
      summary: 'Make an agent (admins; for the impersonated user when impersonating)',
      body: input({ name: str({ minLength: 1, maxLength: 100 }) }, ['name']),
      responses: { 201: json(ref('Agent'), 'Made') },
    },
    'DELETE /agents/:id': { summary: 'Delete an agent with its threads and files (admins)', responses: { 204: noContent('Deleted') } },
    ...texts(),
    'POST /agents/:id/upload_file': {
      summary: 'Upload a file for the agent (also dropped on its desktop when one runs)',
      description: 'At most 100 MB, or what is left of the agent\'s storage quota (413). 507 below the disk\'s reserve.',
      body: { content: { 'multipart/form-data': { schema: obj({ file: str({ contentMediaType: 'application/octet-stream' }) }) } } },
      responses: {
        200: json(obj({
          file_path: str(), file_name: str(), size: int({ minimum: 0 }),
          desktop_file: nullable(str({ description: 'Where the copy landed on the desktop (~/Desktop/…), or null' })),
        })),
      },
      errors: [400, 507],
    },
    'GET /agents/:id/files': {
      summary: "The agent's files: its uploads, and what its desktop holds in ~/Desktop and ~/Downloads (newest first)",
      responses: {
        200: json(arr(obj({
          name: str(), bytes: int({ minimum: 0 }), modified_at: time(), source: oneOfEnum(['upload', 'desktop']),
          folder: nullable(oneOfEnum(['Desktop', 'Downloads'], { description: 'Where on the desktop; null for an upload' })),
          url: str({ description: 'Where it downloads from (an attachment, for the owner and admins)' }),
        }))),
      },
    },
    'GET /agents/:id/files/uploads/:fileId': {
      summary: 'Download one of the agent\'s uploads (an attachment)', responses: { 200: binary('application/octet-stream', 'The file') },
    },
    'GET /agents/:id/files/desktop': {
      summary: 'Download a file of the agent\'s desktop (an attachment), from its home or its newest checkpoint',
      query: { path: query(str(), 'Desktop/<name> or Downloads/<name>', true) },
      responses: { 200: binary('application/octet-stream', 'The file') },
    },
    'POST /agents/:id/run-state': {
      summary: "Set the agent's run state", body: input({ state: RUN_STATE }, ['state']), responses: { 200: json(obj({ state: RUN_STATE })) },
    },
    'GET /agents/:id/run-state': { summary: "The agent's run state", responses: { 200: json(obj({ state: RUN_STATE })) } },
    'POST /agents/start': { summary: 'Start the agent (run state run)', body: AGENT_ID, responses: { 200: json(obj({ state: RUN_STATE })) } },
    'POST /agents/stop': {
      summary: 'Stop the agent (interrupting the turn in flight)',
      body: input({ agent_id: AGENT_REF, force_terminate: bool({ description: 'Accepted; changes nothing more' }) }, ['agent_id']),
      responses: { 200: json(obj({ result: oneOfEnum(['stopping', 'already_stopped']), message: str() })) },
    },
  },
};
