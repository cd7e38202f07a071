// Shapes of the server's records as the SPA sees them (spec section 3).

export type AgentRunState = 'run' | 'run_all' | 'stop';

/** A thread waiting for a person (issue 19): the agent asked, or the runaway guard paused it. */
export type NeedsHelp = { question: string; asked_at: string; reason: 'asked' | 'repeat' | 'cost' | 'calls'; resume?: string };

export type Thread = {
  id: number | string; // a draft has a string id starting with 'tmp-'
  agent_id: number;
  name: string;
  description: string;
  thread_running: boolean;
  error_message: string;
  schedule_sequence: number | null;
  approval_required: boolean;
  target_run_state: string | null;
  target_sequence: number | null;
  needs_help?: NeedsHelp | null;
  /** Its mail waits for the owner: an unverified sender, or over the hourly runs mail may start (the agent's threads only). */
  held_reason?: 'unverified' | 'rate' | null;
  /** The run waits for the owner to let the agent type a vault value (a grant with "ask me before each use"). */
  credential_approval?: CredentialApproval | null;
  created_at?: string;
  updated_at: string;
};

export type AgentSummary = {
  id: number;
  owner_id: number;
  name: string;
  screenshot_url: string | null;
  file_path: string | null;
  agent_running: boolean;
  target_run_state: AgentRunState;
  cua_client_connected: boolean;
  running_state: string;
  number_scheduled_threads: number;
  number_threads_requiring_approval: number;
  /** Threads waiting for a person (issue 19). */
  number_threads_needing_help?: number;
  /** Its desktop is frozen while idle (issue 48); a viewer, a run or a file wakes it. */
  desktop_sleeping?: boolean;
  email_prefix: string | null;
  email_accept_from_addresses: string[] | null;
  updated_at: string;
};

export type Agent = AgentSummary & {
  system_prompt: string;
  notes: string;
  instructions: string;
  threads: Thread[];
};

export type ToolCall = { id?: string; name: string; status: 'pending' | 'running' | 'done' | 'failed' | string; input?: unknown; output?: unknown };

export type Step = {
  id?: number;
  thread_id: number;
  sequence: number;
  reasoning_text: string;
  assistant_text: string;
  user_text: string;
  user_files: string[];
  tool_calls: ToolCall[];
  /** The run that wrote the step (issue 44); a step whose run differs from the one before starts a run. */
  run_id?: number | null;
  created_at?: string;
  updated_at?: string;
};

export type ChatRole = 'user' | 'assistant' | 'reasoning' | 'tool_call' | 'warning' | 'error';
export type ChatMessage = {
  id: number;
  agent_id: number;
  thread_id: number | null;
  role: ChatRole;
  user_data: { text: string; files?: string[] } | null;
  assistant_data: { text: string; [k: string]: unknown } | null;
  created_at: string;
};
export type MessagePage = { messages: ChatMessage[]; total_count: number };
export type MessageEvent = { type: 'created' | 'updated' | 'deleted'; agent_id: number; message_id: number; message: ChatMessage };

// --- the credential vault: values go in, never come back out (reads say has_password / has_totp)

export type Credential = {
  id: number;
  name: string;
  username: string;
  has_password: boolean;
  has_totp: boolean;
  /** Origin patterns (`https://*.example.com`) or window patterns (`window:<class>[:<title>]`). */
  targets: string[];
  notes: string;
  /** When the username, password or TOTP secret last changed. */
  values_changed_at: string;
  created_at: string;
  updated_at: string;
  grants: { agent_ids: number[]; ask_each_time: boolean };
};

export type CredentialField = 'username' | 'password' | 'totp' | 'sign_in';

/** One time an agent used (or tried to use) a credential; outcome e.g. 'filled', 'refused: <reason>', 'denied'. */
export type CredentialFill = { at: string; agent_id: number; thread_id: number; field: CredentialField | string; target: string; outcome: string };

/** A fill waiting for the owner's yes or no; no answer by expires_at counts as no. */
export type CredentialApproval = {
  id: number;
  /** The credential's name. */
  credential: string;
  agent_id: number;
  field: CredentialField | string;
  target: string;
  asked_at: string;
  expires_at: string;
};

// --- personal API tokens (issue 46): the secret is in the create answer only; afterwards `prefix` names a token

/** read: GET only; write: everything but admin routes; admin: everything (admins only). */
export type ApiTokenScope = 'read' | 'write' | 'admin';

export type ApiToken = {
  id: number;
  name: string;
  scope: ApiTokenScope;
  /** The token's first characters (`aw_Xy3k9Q`), to recognise it by. */
  prefix: string;
  created_at: string;
  /** null: never expires. */
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
};

/** POST /api/tokens's answer: the whole token, shown once. */
export type NewApiToken = ApiToken & { token: string };

/** An admin's view of any user's token (GET /api/admin/tokens). */
export type UserApiToken = ApiToken & { user_id: number; user_email: string };

// --- webhooks (issue 46): the signing secret is in the create answer only; afterwards `secret_prefix` names it

/** One of the user's webhook endpoints. Status: disabled (`disabled_reason` says why), failing (since when), or fine. */
export type WebhookEndpoint = {
  id: number;
  url: string;
  /** Event types, e.g. 'run.finished' (webhooks-api.ts lists them). */
  events: string[];
  /** null: events of all the user's agents. */
  agent_id: number | null;
  agent_name: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  /** Since when deliveries keep failing (ISO), null while they succeed. */
  failing_since: string | null;
  /** The secret's first characters (`whsec_AbC`), to recognise it by. */
  secret_prefix: string;
  created_at: string;
};

/** POST /api/webhooks's answer: the whole signing secret, shown once. */
export type NewWebhookEndpoint = WebhookEndpoint & { secret: string };

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One delivery of one event to one endpoint; a redelivery is a new delivery with the same event_id. */
export type WebhookDelivery = {
  id: number;
  endpoint_id: number;
  /** The receiver's webhook-id header ('msg_…'). */
  event_id: string;
  /** An event type, or 'webhook.test'. */
  type: string;
  status: WebhookDeliveryStatus;
  /** Attempts made so far, 0 before the first. */
  attempt: number;
  response_code: number | null;
  latency_ms: number | null;
  /** Why the last attempt failed. */
  error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  /** Set only while pending. */
  next_attempt_at: string | null;
};

/** GET /api/webhooks/:id/deliveries: a page, newest first, and how many there are in all. */
export type WebhookDeliveryPage = { deliveries: WebhookDelivery[]; total: number };
