// The replay wing (issue 44): a thread's runs, a run's replay (its recording, markers and idle spans) for its owner
// and admins, and read-only share links that open the replay without signing in.
import {
  arr, bool, id, input, int, json, noContent, nullable, num, obj, oneOfEnum, record, ref, str, time, type Answer, type Param, type WingTable,
} from '../schema.ts';

const MARKER_KINDS = ['model_call', 'action', 'message', 'help', 'takeover', 'approval', 'guard', 'error'];
const MARKER = {
  at_ms: int({ description: "From the run's start" }), kind: oneOfEnum(MARKER_KINDS), ref_id: { type: ['integer', 'string'] }, label: str(),
};
const RECORDING: Answer = {
  description: 'The Guacamole session recording: gzip bytes as they are (Content-Encoding: gzip) to a client that takes gzip, else gunzipped',
  content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
};
const RANGE = { Range: { schema: str({ pattern: '^bytes=' }), description: 'One byte range (answered 206)' } };
const INDEX: Record<string, Param> = { index: { schema: int({ minimum: 0, maximum: 999_999 }), description: "The marker's place in the replay's list" } };
const TOKEN: Record<string, Param> = { token: { schema: str({ pattern: '^[A-Za-z0-9_-]{43}$' }), description: 'The share link\'s token' } };

export const REPLAY: WingTable = {
  tag: 'replay',
  description: 'Runs and their replays, and links that share a replay.',
  schemas: {
    RunSummary: obj({
      id: id(), thread_id: id(), agent_id: id(), started_at: time(), ended_at: nullable(time()),
      outcome: oneOfEnum(['running', 'done', 'stopped', 'failed', 'paused']), cost: num({ description: 'USD' }), has_replay: bool(),
    }),
    Marker: obj(MARKER),
    MarkerDetail: obj({
      ...MARKER,
      detail: record("The marker's detail; a model call's is {trace} (as GET /llm_traces/{id}; over a link without owner_id and owner_email)"),
    }),
    Replay: obj({
      run_id: id(), thread_id: id(), agent_id: id(), agent_name: str(), thread_name: str(), started_at: time(), ended_at: nullable(time()),
      duration_ms: int({ minimum: 0 }), outcome: oneOfEnum(['running', 'done', 'stopped', 'failed', 'paused']), cost: num({ description: 'USD' }),
      recording_url: nullable(str()), bytes: int({ minimum: 0 }), recording_offset_ms: int({ minimum: 0 }),
      recording_stopped: nullable(str({ description: 'Why the recording stopped before the run' })),
      idle: arr(obj({ from_ms: int(), to_ms: int() }), { description: 'Spans without activity the player may skip' }),
      can_share: bool(), shared: nullable(obj({ by: str({ description: 'Who shared it' }), expires_at: time() })), markers: arr(ref('Marker')),
    }),
  },
  operations: {
    'GET /threads/:id/runs': { summary: "A thread's runs, newest first (500 at most)", responses: { 200: json(arr(ref('RunSummary'))) } },
    'GET /runs/:id/replay': { summary: "A run's replay", responses: { 200: json(ref('Replay')) } },
    'GET /runs/:id/recording': {
      summary: "The run's recording", headers: RANGE, responses: { 200: RECORDING, 206: { ...RECORDING, description: 'The range asked for' } }, errors: [416],
    },
    'GET /runs/:id/replay/markers/:index': { summary: "A marker with its detail", path: INDEX, responses: { 200: json(ref('MarkerDetail')) } },
    'POST /runs/:id/replay/share': {
      summary: 'A read-only link to the replay',
      body: input({ expires_in_s: int({ minimum: 3600, maximum: 2_592_000, default: 604_800 }) }),
      responses: { 201: json(obj({ id: id(), url: str({ description: '<origin>/replay/shared/<token>' }), expires_at: time() }), 'Made') },
    },
    'GET /runs/:id/replay/shares': {
      summary: "The run's live links", responses: { 200: json(arr(obj({ id: id(), created_at: time(), expires_at: time(), created_by: str() }))) },
    },
    'DELETE /replay-shares/:id': { summary: 'Revoke a link', responses: { 204: noContent('Revoked') } },
    'GET /replay-shares/by-token/:token': {
      summary: "A shared run's replay, for the link's holder", path: TOKEN, responses: { 200: json(ref('Replay')) }, errors: [410],
    },
    'GET /replay-shares/by-token/:token/recording': {
      summary: "A shared run's recording", path: TOKEN, headers: RANGE,
      responses: { 200: RECORDING, 206: { ...RECORDING, description: 'The range asked for' } }, errors: [410, 416],
    },
    'GET /replay-shares/by-token/:token/markers/:index': {
      summary: "A shared run's marker with its detail", path: { ...TOKEN, ...INDEX }, responses: { 200: json(ref('MarkerDetail')) }, errors: [410],
    },
  },
};
