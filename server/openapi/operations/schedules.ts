// The schedules wing (admins only, spec section 7 "Scheduler"): the id is an agent's for listing and making, a
// schedule's for changing and deleting.
import { arr, id, input, int, json, noContent, nullable, obj, oneOfEnum, ref, str, time, type Schema, type WingTable } from '../schema.ts';

const RULE: Record<string, Schema> = {
  frequency: oneOfEnum(['daily', 'weekly', 'monthly', 'interval']),
  schedule_time: nullable(str({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM in UTC; unused by interval' })),
  weekdays: nullable(arr(int({ minimum: 0, maximum: 6 }), { description: '0-6, Monday first; weekly only' })),
  week_interval: nullable(int({ minimum: 1, description: 'Every n-th week; weekly only' })),
  day_of_month: nullable(int({ minimum: 1, maximum: 31 })),
  interval: nullable(int({ minimum: 1, description: 'Seconds between runs; interval only' })),
  message: str({ description: 'What the started thread is asked' }),
};
const RULE_INPUT = input(RULE, ['frequency', 'message']);
const AGENT = { id: { schema: id(), description: "The agent's id" } };
const SCHEDULE = { id: { schema: id(), description: "The schedule's id" } };

export const SCHEDULES: WingTable = {
  tag: 'schedules',
  description: 'Schedules that start a thread for an agent.',
  schemas: {
    Schedule: obj({ id: id(), agent_id: id(), ...RULE, next_run: time(), last_run: nullable(time()), created_at: time(), updated_at: time() }),
  },
  operations: {
    'GET /scheduler/:id': { summary: "An agent's schedules", path: AGENT, responses: { 200: json(arr(ref('Schedule'))) } },
    'POST /scheduler/:id': { summary: 'Make a schedule for an agent', path: AGENT, body: RULE_INPUT, responses: { 201: json(ref('Schedule'), 'Made') } },
    'PUT /scheduler/:id': { summary: 'Replace a schedule', path: SCHEDULE, body: RULE_INPUT, responses: { 200: json(ref('Schedule')) } },
    'DELETE /scheduler/:id': { summary: 'Delete a schedule', path: SCHEDULE, responses: { 204: noContent('Deleted') } },
  },
};
