// The four events a device may be told about, as checkboxes in the server's order.
import { useId } from 'react';
import { PUSH_EVENTS, pushEventLabel } from '../../../lib/push-api.ts';

type Props = { chosen: string[]; disabled?: boolean; onChange: (events: string[]) => void };

export function EventChoices({ chosen, disabled, onChange }: Props) {
  const id = useId();
  const tick = (type: string, on: boolean) => onChange(PUSH_EVENTS.filter((e) => (e === type ? on : chosen.includes(e))));
  return (
    <fieldset className="push-events" disabled={disabled}>
      <legend>Notify me when</legend>
      {PUSH_EVENTS.map((type) => (
        <div key={type} className="push-event">
          <input id={`${id}-${type}`} type="checkbox" checked={chosen.includes(type)} onChange={(e) => tick(type, e.target.checked)} />
          <label htmlFor={`${id}-${type}`}>{pushEventLabel(type)}</label>
        </div>
      ))}
    </fieldset>
  );
}
