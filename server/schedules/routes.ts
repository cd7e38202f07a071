// /api/scheduler/{id} (spec §7 "Scheduler", admin only): GET lists and POST creates by agent id, PUT
// and DELETE act on a schedule id; each answers with the schedule, next_run included. Bodies are
// checked with the client's own rules (src/lib/schedule-rules.ts), so a 422 says what the form says.
import { idParam, type Api, type Ctx } from '../http/api.ts';
import type { Queryable } from '../db/db.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { ownedAgentId } from '../agents/access.ts';
import { createSchedule, deleteSchedule, listSchedules, scheduleAgentId, updateSchedule } from './schedules.ts';
import { record } from '../audit/audit.ts';
import { FREQUENCIES, normalizeSchedule, validateSchedule, type Frequency, type ScheduleRule } from '../../src/lib/schedule-rules.ts';

const NOT_FOUND = 'Schedule not found';

export function registerSchedulerRoutes(api: Api) {
  api.get('/scheduler/:id', async (ctx) => {
    const agentId = await ownedAgentId(ctx.db, ctx.user, idParam(ctx.params.id, 'Agent not found'));
    return listSchedules(ctx.db, agentId);
  }, 'admin');

  api.post('/scheduler/:id', async (ctx) => {
    const agentId = await ownedAgentId(ctx.db, ctx.user, idParam(ctx.params.id, 'Agent not found'));
    const rule = parseRule(await ctx.body());
    ctx.status = 201;
    return ctx.db.tx(async (q) => {
      const created = await createSchedule(q, agentId, rule);
      await record(q, { action: 'schedule.create', target: { type: 'schedule', id: created.id }, detail: { agent_id: agentId, to: ruleOf(created) } });
      return created;
    });
  }, 'admin');

  api.put('/scheduler/:id', async (ctx) => {
    const id = await scheduleId(ctx);
    const rule = parseRule(await ctx.body());
    const saved = await updateSchedule(ctx.db, id, rule, new Date(), (q, from, to) => record(q, {
      action: 'schedule.update', target: { type: 'schedule', id }, detail: { agent_id: to.agent_id, from: ruleOf(from), to: ruleOf(to) },
    }));
    if (!saved) throw new HttpError(404, NOT_FOUND); // deleted in between
    return saved;
  }, 'admin');

  api.delete('/scheduler/:id', async (ctx) => {
    const id = await scheduleId(ctx);
    const deleted = await ctx.db.tx(async (q) => {
      const [before] = await listSchedulesById(q, id);
      if (!before || !(await deleteSchedule(q, id))) return false;
      await record(q, { action: 'schedule.delete', target: { type: 'schedule', id }, detail: { agent_id: before.agent_id, from: ruleOf(before) } });
      return true;
    });
    if (!deleted) throw new HttpError(404, NOT_FOUND);
    return null;
  }, 'admin');
}

/** What an event keeps of a schedule: its rule, the message's length instead of its text. */
export function ruleOf(s: ScheduleRule): Record<string, unknown> {
  const { message, ...rule } = s;
  return {
    frequency: rule.frequency, schedule_time: rule.schedule_time, weekdays: rule.weekdays, week_interval: rule.week_interval,
    day_of_month: rule.day_of_month, interval: rule.interval, message_chars: message?.length ?? 0,
  };
}

async function listSchedulesById(q: Queryable, id: number) {
  const agentId = await scheduleAgentId(q, id);
  return agentId === null ? [] : (await listSchedules(q, agentId)).filter((s) => s.id === id);
}

/** A schedule the caller may reach (its agent's ownership rules), else 404. */
async function scheduleId(ctx: Ctx): Promise<number> {
  const id = idParam(ctx.params.id, NOT_FOUND);
  const agentId = await scheduleAgentId(ctx.db, id);
  if (agentId === null) throw new HttpError(404, NOT_FOUND);
  await ownedAgentId(ctx.db, ctx.user, agentId).catch(() => {
    throw new HttpError(404, NOT_FOUND);
  });
  return id;
}

/** Shapes first (types the form cannot send wrong), then the shared rules with the spec's messages. */
export function parseRule(body: Record<string, unknown>): ScheduleRule {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'Expected a JSON object');
  const frequency = body.frequency;
  if (typeof frequency !== 'string' || !(FREQUENCIES as readonly string[]).includes(frequency)) {
    throw invalid('frequency', `frequency must be one of ${FREQUENCIES.join(', ')}`);
  }
  const rule: ScheduleRule = {
    frequency: frequency as Frequency,
    schedule_time: nullable(body.schedule_time),
    weekdays: nullable(body.weekdays),
    week_interval: nullable(body.week_interval),
    day_of_month: nullable(body.day_of_month),
    interval: nullable(body.interval),
    message: typeof body.message === 'string' ? body.message : '',
  };
  // The rules look only at the fields the frequency uses; normalizeSchedule drops the others.
  const error = validateSchedule(rule);
  if (error) throw invalid(error.field, error.message);
  return normalizeSchedule(rule);
}

function nullable<T>(value: unknown): T | null {
  return value === undefined ? null : (value as T);
}
