// The admin wing (admins only, spec section 7 "Admin"): every user's agents and threads, the threads waiting for
// approval or help, deleting a thread, the Ops Dashboard's desktops and disk, and the spend report.
import { THREAD } from '../components.ts';
import { arr, bool, extend, id, int, json, media, noContent, nullable, num, obj, oneOfEnum, query, ref, str, time, type WingTable } from '../schema.ts';

const MONTH = query(str({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$' }), 'YYYY-MM (UTC); default this month');
const OVERVIEW = obj({
  id: id(), name: str(), owner_id: id(), owner_email: str(), target_run_state: oneOfEnum(['run', 'run_all', 'stop']), agent_running: bool(),
  number_scheduled_threads: int({ minimum: 0 }), number_threads_requiring_approval: int({ minimum: 0 }),
  updated_at: time({ description: "The agent's last activity: its own change or its newest thread's" }),
});

export const ADMIN: WingTable = {
  tag: 'admin',
  description: "The admins' views over every user's agents, threads, desktops, disk and spend.",
  schemas: {
    AdminAgent: OVERVIEW,
    AdminThread: extend(THREAD, {
      agent_name: str(), owner_email: str(), steps: arr(ref('Step'), { description: 'The newest 500, oldest first' }), total_steps: int(),
    }),
    UserSpend: obj({
      month: str(), user_id: id(), email: str(), spend_cents: num(), limit_cents: int(), status: oneOfEnum(['no_limit', 'ok', 'near', 'over']),
      top_agents: arr(obj({ agent_id: nullable(id()), name: str(), spend_cents: num() }), { maxItems: 3 }),
    }),
  },
  operations: {
    'GET /admin/agents': { summary: "Every user's agents, the most recently active first", responses: { 200: json(arr(ref('AdminAgent'))) } },
    'GET /admin/threads': {
      summary: "An agent's overview row and its threads",
      query: { agent_id: query(id(), 'The agent', true) },
      responses: {
        200: json(obj({
          agent: extend(OVERVIEW, { desktop_instance: nullable(str({ description: 'The instance running its desktop (several servers)' })) }),
          threads: arr(ref('Thread')),
        })),
      },
    },
    'GET /admin/threads/:id': { summary: "Any user's thread with its agent's name and newest steps", responses: { 200: json(ref('AdminThread')) } },
    'DELETE /admin/threads/:id': { summary: "Delete any user's thread", responses: { 204: noContent('Deleted') } },
    'GET /admin/threads-requiring-approval': {
      summary: 'Threads waiting for approval or for a person, the one waiting longest first',
      responses: {
        200: json(arr(obj({
          id: id(), thread_name: str(), agent_id: id(), agent_name: str(), updated_at: time(), approval_required: bool(),
          needs_help: nullable(ref('NeedsHelp')),
        }))),
      },
    },
    'GET /admin/desktops': {
      summary: 'Which instance runs which agent\'s desktop',
      responses: {
        200: json(obj({
          instance_id: nullable(str({ description: 'This instance (null on a single server)' })),
          instances: arr(obj({ id: str(), address: str(), desktop_host: bool(), desktops: int(), heartbeat_at: time() })),
          placements: arr(obj({
            agent_id: id(), agent_name: nullable(str()), instance_id: nullable(str()), stale: bool(),
            sleeping: bool({ description: 'The desktop is asleep (frozen while idle)' }),
            heartbeat_at: time({ description: 'Several servers only' }),
          }, ['heartbeat_at'])),
        })),
      },
    },
    'GET /admin/storage': {
      summary: "The data directory's disk",
      responses: {
        200: json(obj({ free_bytes: int(), total_bytes: int(), reserve_bytes: int(), low: bool({ description: 'Free space is below the reserve' }) })),
      },
    },
    'GET /admin/spend': {
      summary: "Each user's spend in a month, with their top agents and limit status",
      query: { month: MONTH },
      responses: { 200: json(obj({ month: str(), users: arr(ref('UserSpend')) })) },
    },
    'GET /admin/spend/export': {
      summary: 'The spend report over the last months, as CSV',
      query: { month: MONTH, months: query(int({ minimum: 1, maximum: 24, default: 1 }), 'How many months up to `month`') },
      responses: { 200: media('text/csv', str(), 'month,user_id,email,spend_usd,limit_usd,status,top_agents') },
    },
  },
};
