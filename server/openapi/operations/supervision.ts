// The supervision wing: an agent's runaway-guard rules (0 turns a rule off).
import { extend, input, int, json, obj, ref, type Schema, type WingTable } from '../schema.ts';

const RULES = obj({
  repeat_limit: int({ minimum: 0, maximum: 1000, description: 'The same action on an unchanged screen this many times in a row' }),
  cost_cap_cents: int({ minimum: 0, maximum: 10_000_000, description: 'Cost since the last human message' }),
  max_calls: int({ minimum: 0, maximum: 100_000, description: 'Model calls since the last human message' }),
});

export const SUPERVISION: WingTable = {
  tag: 'supervision',
  description: "The runaway guard's rules of an agent.",
  schemas: { GuardRules: RULES, GuardSettings: extend(RULES, { defaults: ref('GuardRules') }) },
  operations: {
    'GET /agents/:id/supervision': { summary: "The agent's guard rules and the defaults", responses: { 200: json(ref('GuardSettings')) } },
    'PUT /agents/:id/supervision': {
      summary: 'Change some of the guard rules',
      body: input(RULES.properties as Record<string, Schema>),
      responses: { 200: json(ref('GuardSettings')) },
    },
  },
};
