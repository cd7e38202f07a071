// /api/agents/:id/supervision: the runaway guard's rules of an agent (issue 19); 0 turns a rule off.
import type { Api } from '../http/api.ts';
import { invalid } from '../http/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';
import { agentIdParam } from '../agents/params.ts';
import { getGuardSettings, GUARD_DEFAULTS, GUARD_LIMITS, setGuardSettings, type GuardSettings } from './supervision.ts';

type Deps = { bus: Bus };

export function registerSupervisionRoutes(api: Api, deps: Deps) {
  api.get('/agents/:id/supervision', async (ctx) => {
    const id = await agentIdParam(ctx);
    return { ...(await getGuardSettings(ctx.db, id))!, defaults: GUARD_DEFAULTS };
  });
  api.put('/agents/:id/supervision', async (ctx) => {
    const id = await agentIdParam(ctx);
    const body = await ctx.body();
    const current = (await getGuardSettings(ctx.db, id))!;
    const next = { ...current };
    for (const key of Object.keys(GUARD_LIMITS) as (keyof GuardSettings)[]) {
      const value = body[key];
      if (value === undefined) continue;
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > GUARD_LIMITS[key]) {
        throw invalid(key, `${key} must be a whole number from 0 (off) to ${GUARD_LIMITS[key]}`);
      }
      next[key] = value as number;
    }
    const stored = (await setGuardSettings(ctx.db, id, next))!;
    deps.bus.publish(TOPICS.agentChanged(id), { agent_id: id });
    return { ...stored, defaults: GUARD_DEFAULTS };
  });
}
