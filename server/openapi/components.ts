// What every wing's descriptions share: the error body and the error answers, the ways to authenticate, the
// impersonation header, and the records several wings answer with (users, threads, steps, chat messages, traces).
import { anything, arr, bool, extend, id, int, nullable, num, obj, oneOfEnum, record, ref, str, time, type Answer, type Schema } from './schema.ts';

/** The error answers by status, each a `{detail}` body (server/http/errors.ts). */
const ERRORS: Record<number, [name: string, description: string]> = {
  400: ['BadRequest', 'The body is not valid JSON, or the request cannot be acted on (e.g. a spent link).'],
  401: ['Unauthorized', 'No valid token came along: missing, malformed, expired, revoked or signed out (all alike).'],
  403: ['Forbidden', 'Not allowed: an admin route, a token scope that does not reach it, or impersonation by a non-admin.'],
  404: ['NotFound', 'No such resource, or one the caller may not see (never "exists but forbidden"), or an impersonated user that does not exist.'],
  409: ['Conflict', 'The resource is not in a state that allows this.'],
  410: ['Gone', 'The link has expired.'],
  413: ['PayloadTooLarge', 'The body is larger than the route accepts.'],
  415: ['UnsupportedMediaType', 'The body is not of a media type the route accepts.'],
  416: ['RangeNotSatisfiable', 'The Range lies outside the body.'],
  422: ['UnprocessableEntity', 'A value is missing or invalid; `detail` is a list of `{loc, msg, type}` naming it.'],
  426: ['UpgradeRequired', 'A WebSocket route called without an upgrade.'],
  429: ['TooManyRequests', 'Too many attempts; `Retry-After` says when to try again.'],
  503: ['ServiceUnavailable', 'The database is unavailable or cannot write right now (or the feature is not set up here).'],
  507: ['InsufficientStorage', 'Not enough storage space on the server.'],
};

/** `#/components/responses/<Name>` for an error status (which must be one of ERRORS). */
export function errorRef(status: number): { $ref: string } {
  const known = ERRORS[status];
  if (!known) throw new Error(`openapi: no error response for status ${status}`);
  return { $ref: `#/components/responses/${known[0]}` };
}

const responses: Record<string, Answer> = Object.fromEntries(
  Object.values(ERRORS).map(([name, description]) => [name, { description, content: { 'application/json': { schema: ref('Error') } } }]),
);

export const ISSUE = obj({
  loc: arr({ type: ['string', 'integer'] }, { description: 'Where: body, query, path or header, then the field.' }),
  msg: str(),
  type: str(),
}, ['type']);

export const USER = obj({
  id: id(), email: str(), role: oneOfEnum(['user', 'admin']), name: str(), monthly_spend_limit_cents: int({ minimum: 0, description: '0: no limit' }),
});

export const NEEDS_HELP = obj({
  question: str(), asked_at: time(), reason: oneOfEnum(['asked', 'repeat', 'cost', 'calls']), resume: oneOfEnum(['run', 'run_all']),
}, ['resume'], { description: 'The thread waits for a person: the agent asked, or the runaway guard paused it.' });

export const PENDING_APPROVAL = obj({
  id: id(), credential: str({ description: "The credential's name." }), agent_id: id(), field: str(), target: str(), asked_at: time(), expires_at: time(),
}, [], { description: 'A credential fill waiting for the owner to allow it.' });

export const THREAD = obj({
  id: id(), agent_id: id(), name: str(), description: str(), thread_running: bool(), error_message: str({ description: "'' when none" }),
  schedule_sequence: nullable(int({ minimum: 1, description: "Place in the agent's queue (1 runs next); null: not queued" })),
  approval_required: bool(), target_run_state: nullable(oneOfEnum(['run', 'stop'])), target_sequence: nullable(int()),
  needs_help: nullable(ref('NeedsHelp')), credential_approval: nullable(ref('CredentialApproval')),
  held_reason: nullable(oneOfEnum(['unverified', 'rate'], { description: "Why the thread's mail waits for its owner (agent detail only)." })),
  created_at: time(), updated_at: time(),
}, ['credential_approval', 'held_reason']);

export const TOOL_CALL = obj({
  id: str(), name: str(), status: str({ description: 'pending, running, done, failed …' }), input: anything('The call'), output: anything('Its result'),
}, ['id', 'input', 'output'], { additionalProperties: true, description: "A tool call as the runner keeps it (it may carry more, e.g. done_at)." });

export const STEP = obj({
  id: id(), thread_id: id(), sequence: int({ minimum: 1 }), reasoning_text: str(), assistant_text: str(), user_text: str(),
  user_files: arr(str(), { description: 'Paths of uploaded files' }), tool_calls: arr(ref('ToolCall')),
  run_id: nullable(id({ description: 'The run that wrote it' })), created_at: time(), updated_at: time(),
});

export const MESSAGE = obj({
  id: id(), agent_id: id(), thread_id: nullable(id()), role: oneOfEnum(['user', 'assistant', 'reasoning', 'tool_call', 'warning', 'error']),
  user_data: nullable(obj({ text: str(), files: arr(str()) }, ['files'])),
  assistant_data: nullable({
    type: 'object', properties: { text: str() }, additionalProperties: true, description: 'text, and for tool calls their name, status …',
  }),
  run_id: nullable(id()), created_at: time(),
});

export const TRACE_SUMMARY = obj({
  id: id(), owner_id: id(), owner_email: str(), created_at: time(), agent_id: nullable(id()), thread_id: nullable(id()), run_id: nullable(id()),
  thread_name: str({ description: "'Main…' or 'Sub…'" }), model: str(), cache_read_tokens: int(), input_tokens: int(), output_tokens: int(),
  estimated_cost: num({ description: 'USD' }), latency: num({ description: 'Seconds' }),
});

const BODIES = {
  parameters: nullable(record('The call\'s parameters')),
  request: nullable(anything('What was sent to the model')),
  response: nullable(anything('What the model answered: a content list of thinking, text and tool_use items')),
};
export const TRACE = extend(TRACE_SUMMARY, BODIES);

/** The schemas more than one wing answers with. */
export const SHARED_SCHEMAS: Record<string, Schema> = {
  Error: obj({ detail: { anyOf: [str(), arr(ref('ValidationIssue'))] } }, [], { description: 'Every error answer.' }),
  ValidationIssue: ISSUE,
  User: USER,
  NeedsHelp: NEEDS_HELP,
  CredentialApproval: PENDING_APPROVAL,
  Thread: THREAD,
  ToolCall: TOOL_CALL,
  Step: STEP,
  Message: MESSAGE,
  TraceSummary: TRACE_SUMMARY,
  Trace: TRACE,
};

const scopes = 'Scopes, as the roles of a security requirement: `read` (GET only), `write` (everything but admin routes), `admin` (an admin\'s, all).';

export const SECURITY_SCHEMES = {
  session: {
    type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
    description: 'The short-lived access token of the built-in sign-in: POST /api/auth/sign-in answers `{token}`, and POST /api/auth/token '
      + 'gives a new one from the httpOnly refresh cookie. Role `admin`: the signed-in user must be an admin.',
  },
  apiToken: {
    type: 'http', scheme: 'bearer', bearerFormat: 'aw_<43 base64url characters>',
    description: `A personal API token (made under /settings/tokens, shown once). ${scopes} An API token never impersonates.`,
  },
  queryToken: {
    type: 'apiKey', in: 'query', name: 'token',
    description: 'WebSocket routes: either token in the query, since browsers cannot set headers on a socket.',
  },
  metricsToken: { type: 'http', scheme: 'bearer', description: 'The METRICS_TOKEN a scraper is configured with.' },
};

export const IMPERSONATE = {
  name: 'X-Impersonate-User-Id', in: 'header', required: false, schema: str({ pattern: '^[0-9]+$' }),
  description: 'Admins only (a signed-in session): act as this user. Anyone else gets 403; a user that does not exist, 404.',
};

export const COMPONENTS = { responses, securitySchemes: SECURITY_SCHEMES, parameters: { ImpersonateUserId: IMPERSONATE } };
