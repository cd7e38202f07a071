// The runaway guard's rules of an agent (issue 19) in Developer options: the same action on an unchanged screen
// N times in a row, the cost since the person's last message (USD), the model calls since it; 0 turns a rule off.
import { useId } from 'react';
import type { GuardSettings } from '../../../lib/api.ts';

type GuardSettingsFieldsProps = { value: GuardSettings; onChange: (value: GuardSettings) => void };

const whole = (text: string) => Math.max(0, Math.floor(Number(text) || 0));

export function GuardSettingsFields({ value, onChange }: GuardSettingsFieldsProps) {
  const id = useId();
  const field = (key: keyof GuardSettings, label: string, shown: number, parse: (text: string) => number, step = 1) => (
    <label className="guard-field" htmlFor={`${id}-${key}`}>
      <span>{label}</span>
      <input
        id={`${id}-${key}`}
        type="number"
        min={0}
        step={step}
        value={shown}
        onChange={(e) => onChange({ ...value, [key]: parse(e.target.value) })}
      />
    </label>
  );
  return (
    <fieldset className="guard-settings">
      <legend>Runaway guard: the agent pauses and asks you when it crosses one of these (0 turns a rule off)</legend>
      {field('repeat_limit', 'Same action on an unchanged screen, times in a row', value.repeat_limit, whole)}
      {field('cost_cap_cents', 'Cost since your last message, USD', value.cost_cap_cents / 100, (t) => Math.round(Math.max(0, Number(t) || 0) * 100), 0.01)}
      {field('max_calls', 'Model calls since your last message', value.max_calls, whole)}
    </fieldset>
  );
}
