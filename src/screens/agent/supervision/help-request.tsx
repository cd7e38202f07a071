// The chat's item for a thread waiting for a person (issue 19): the agent's question (or the runaway guard's
// reason) with a Take control button; answering in the chat below, or handing the desktop back, ends it.
import type { NeedsHelp } from '../../../lib/types.ts';
import { pauseTitle } from './handback.ts';

type HelpRequestProps = { help: NeedsHelp; onTakeControl?: () => void };

export function HelpRequest({ help, onTakeControl }: HelpRequestProps) {
  return (
    <div className="help-request" role="status" data-reason={help.reason}>
      <p className="help-request-title">{pauseTitle(help.reason)}</p>
      <p className="message-text help-request-question">{help.question}</p>
      <p className="help-request-hint">Answer below, or take control of the desktop and hand it back with Expand chat.</p>
      {onTakeControl && (
        <button type="button" className="button button-primary help-request-take" onClick={onTakeControl}>
          Take control
        </button>
      )}
    </div>
  );
}
