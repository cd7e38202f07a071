// The traces wing: the LLM traces (spec section 7 "Traces": a user sees their own, an admin everyone's and may filter
// by owner) and which model the runs use.
import { TRACE_SUMMARY } from '../components.ts';
import { arr, bool, extend, id, int, json, num, obj, query, ref, str, type Param, type WingTable } from '../schema.ts';

const OWNER = query(id(), "Admins: one owner's traces; anyone else may name only themselves (403)");
const DATE_TIME = (what: string) => query(str({ examples: ['2026-11-29 08:00'] }), `${what}: YYYY-MM-DD[ HH:MM[:SS]] (UTC)`);
const FILTERS: Record<string, Param> = {
  owner_id: OWNER,
  thread_name: query(str(), "Exactly this thread name ('Main', 'Sub …')"),
  id_from: query(int({ minimum: 0 }), 'Lowest trace id'),
  id_to: query(int({ minimum: 0 }), 'Highest trace id'),
  created_at_from: DATE_TIME('From'),
  created_at_to: DATE_TIME('Up to and including'),
};

export const TRACES: WingTable = {
  tag: 'traces',
  description: 'The model calls the agents made, and the model in use.',
  schemas: {
    TracePage: obj({
      traces: arr(ref('TraceSummary'), { description: 'Newest first' }), total_count: int({ minimum: 0 }), page: int(), page_size: int(),
      total_count_estimated: bool({ description: 'Past 10,000 matches the count is the planner\'s estimate' }),
    }),
    ThreadTrace: extend(TRACE_SUMMARY, {
      parameters: { type: ['object', 'null'] }, request: { description: 'verbose only' }, response: { description: 'verbose only' },
    }, ['request', 'response']),
  },
  operations: {
    'GET /llm_traces/': {
      summary: 'A page of traces, newest first',
      query: {
        ...FILTERS,
        page: query(int({ minimum: 1, default: 1 }), 'From 1'),
        page_size: query(int({ minimum: 1, maximum: 100, default: 20 }), 'Traces per page'),
      },
      responses: { 200: json(ref('TracePage')) },
    },
    'GET /llm_traces/owners': {
      summary: 'Whose traces the caller may filter by (a user: themselves)', responses: { 200: json(arr(obj({ id: id(), email: str() }))) },
    },
    'GET /llm_traces/thread_names': {
      summary: 'The thread names of the traces (at most 1,000)', query: { owner_id: OWNER }, responses: { 200: json(arr(str())) },
    },
    'GET /llm_traces/cost_by_day': {
      summary: 'Estimated cost and calls per UTC day',
      query: FILTERS,
      responses: { 200: json(arr(obj({ day: str({ format: 'date' }), cost: num({ description: 'USD' }), count: int({ minimum: 0 }) }))) },
    },
    'GET /llm_traces/thread/:threadId': {
      summary: "A thread's traces, ascending by id",
      description: 'No cursor: the newest `limit`; before_trace_id: an older page; after_trace_id: newer ones (polling).',
      query: {
        after_trace_id: query(int({ minimum: 0 }), 'Only traces after this id'),
        before_trace_id: query(int({ minimum: 0 }), 'Only traces before this id'),
        limit: query(int({ minimum: 1, maximum: 500, default: 100 }), 'How many'),
        verbose: query({ enum: ['true', 'false'], default: 'false' }, 'With what was sent and answered'),
      },
      responses: { 200: json(obj({ traces: arr(ref('ThreadTrace')), has_more: bool({ description: 'Older traces exist' }) })) },
    },
    'GET /llm_traces/:id': { summary: 'One trace with what was sent and answered', responses: { 200: json(ref('Trace')) } },
    'GET /models/status': {
      summary: 'The model the runs use',
      responses: { 200: json(obj({ provider: str(), model: str(), offline: bool({ description: 'The built-in offline model' }) })) },
    },
  },
};
