// The audit wing (admins only, and not while acting as a non-admin): the trail's pages, its export, its verification.
import { arr, bool, extend, id, int, json, nullable, obj, oneOfEnum, query, ref, str, record, type Param, type WingTable } from '../schema.ts';

const text = (description: string) => query(str({ maxLength: 200 }), description);
const FILTERS: Record<string, Param> = {
  actor: text("'system', a user's id or e-mail, or agent:<id>"),
  action: text("An action, or its start ('agent.')"),
  target_type: text('user, agent, thread, …'),
  target_id: text('The target'),
  since: text('ISO 8601'),
  until: text('ISO 8601'),
  cursor: query(str({ pattern: '^\\d{1,18}$' }), 'The next_cursor of the previous page'),
};

const EVENT = obj({
  id: id(), at: str({ format: 'date-time' }), instance: str(), actor_type: oneOfEnum(['user', 'agent', 'system']), actor_id: nullable(int()),
  actor_label: nullable(str()), impersonator_id: nullable(int()), impersonator_label: nullable(str()), action: str(), target_type: nullable(str()),
  target_id: nullable(str()), request_id: nullable(str()), ip: nullable(str()), user_agent: nullable(str()), detail: record('What the event says'),
  prev_hash: str(), hash: str(),
});

export const AUDIT: WingTable = {
  tag: 'audit',
  description: 'The audit trail: an append-only, hash-chained record of every change.',
  schemas: {
    AuditEvent: EVENT,
    AuditEventNamed: extend(EVENT, {
      agent_name: nullable(str({ description: 'The agent the event is about, as it is called now' })),
      actor_name: nullable(str({ description: 'The agent that acted, as it is called now' })),
    }),
  },
  operations: {
    'GET /admin/audit': {
      summary: 'A page of events, newest first (50), with the names of the agents they are about',
      query: FILTERS,
      responses: { 200: json(obj({ events: arr(ref('AuditEventNamed')), next_cursor: nullable(str({ description: 'null on the last page' })) })) },
    },
    'GET /admin/audit/export': {
      summary: 'Every matching event, as JSON lines or CSV (streamed)',
      query: { ...FILTERS, format: query(oneOfEnum(['jsonl', 'csv'], { default: 'jsonl' }), 'The format') },
      responses: {
        200: {
          description: 'The events, newest first',
          content: { 'application/x-ndjson': { schema: str({ description: 'One AuditEvent per line' }) }, 'text/csv': { schema: str() } },
        },
      },
    },
    'GET /admin/audit/verify': {
      summary: "Recompute the chain's hashes",
      responses: { 200: json(obj({ ok: bool(), checked: int({ minimum: 0 }), first_bad_id: nullable(int()) })) },
    },
  },
};
