// Typed calls for the LLM traces endpoints (spec §7 "Traces") and the model status, plus the shapes
// of spec §3 "Trace". The paths double as useResource keys (traceListPath and friends).
import { request } from './http.ts';

/** Spec §9: page size in the agent screen's panel, its polling interval, the page's table size. */
export const PANEL_PAGE_SIZE = 100;
export const TRACE_POLL_MS = 1000;
export const TABLE_PAGE_SIZE = 20;

export type TraceRow = {
  id: number;
  owner_id: number;
  owner_email: string | null;
  created_at: string;
  agent_id: number | null;
  thread_id: number | null;
  /** The run that made the call (issue 44): its replay is at /replay/{run_id}. */
  run_id?: number | null;
  /** Starts with 'Main' or 'Sub'. */
  thread_name: string | null;
  model: string | null;
  cache_read_tokens: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  /** USD. */
  estimated_cost: number | null;
  /** Seconds. */
  latency: number | null;
};

export type TraceContentItem =
  | { type: 'thinking'; thinking: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: unknown; id?: string };

export type TraceResponse = {
  /** Items of other types may appear; the viewers show them as JSON. */
  content?: Array<TraceContentItem | { type: string; [key: string]: unknown }>;
  usage?: Record<string, unknown>;
  [key: string]: unknown;
};

/** A full trace; the thread route with verbose=false leaves out request and response. */
export type Trace = TraceRow & {
  parameters?: unknown;
  request?: unknown;
  response?: TraceResponse | null;
};

export type TracePage = {
  traces: TraceRow[];
  total_count: number;
  page: number;
  page_size: number;
  /** True when total_count is the planner's estimate (very large result sets). */
  total_count_estimated?: boolean;
};
export type ThreadTraces = { traces: Trace[]; has_more: boolean };
export type TraceOwner = { id: number; email: string };
export type CostByDay = { day: string; cost: number; count: number };
export type ModelStatus = { provider: string; model: string; offline: boolean };

/** Query filters of the list and cost_by_day routes; dates are UTC 'YYYY-MM-DD HH:MM' (spec §5). */
export type TraceFilters = {
  owner_id?: number;
  thread_name?: string;
  id_from?: number;
  id_to?: number;
  created_at_from?: string;
  created_at_to?: string;
};

export type ThreadTraceQuery = {
  after_trace_id?: number;
  before_trace_id?: number;
  limit?: number;
  verbose?: boolean;
};

type Query = Record<string, string | number | boolean | undefined>;

/** '?a=1&b=2' without empty values, in a fixed order so equal queries give equal cache keys. */
function search(query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function filterQuery(filters: TraceFilters): Query {
  const { owner_id, thread_name, id_from, id_to, created_at_from, created_at_to } = filters;
  return { owner_id, thread_name, id_from, id_to, created_at_from, created_at_to };
}

export const traceListPath = (filters: TraceFilters, page: number, pageSize = TABLE_PAGE_SIZE) =>
  `/llm_traces/${search({ ...filterQuery(filters), page, page_size: pageSize })}`;
export const costByDayPath = (filters: TraceFilters) => `/llm_traces/cost_by_day${search(filterQuery(filters))}`;
export const traceOwnersPath = '/llm_traces/owners';
export const threadNamesPath = (ownerId?: number) => `/llm_traces/thread_names${search({ owner_id: ownerId })}`;
export const tracePath = (id: number) => `/llm_traces/${id}`;
export const modelStatusPath = '/models/status';

export const listTraces = (filters: TraceFilters, page: number, pageSize = TABLE_PAGE_SIZE) =>
  request<TracePage>(traceListPath(filters, page, pageSize));
export const listTraceOwners = () => request<TraceOwner[]>(traceOwnersPath);
export const listTraceThreadNames = (ownerId?: number) => request<string[]>(threadNamesPath(ownerId));
export const getTrace = (id: number) => request<Trace>(tracePath(id));
export const getCostByDay = (filters: TraceFilters) => request<CostByDay[]>(costByDayPath(filters));
export const getModelStatus = () => request<ModelStatus>(modelStatusPath);

/** Ascending by id: no cursor gives the newest `limit`, before_trace_id an older page, after_trace_id newer ones. */
export const getThreadTraces = (threadId: number, query: ThreadTraceQuery, signal?: AbortSignal) =>
  request<ThreadTraces>(`/llm_traces/thread/${threadId}${search(query)}`, { signal });
