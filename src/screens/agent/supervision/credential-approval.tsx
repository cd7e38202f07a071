// The chat's card for a run paused on "ask me before each use": which value of which credential the agent
// wants to type where, the screen it saw, the time left (no answer in 10 minutes counts as denied, on the
// server), and Approve / Deny. The answer shows on the card until the thread's next poll clears it.
import { useId, useState } from 'react';
import { agentPath } from '../../../lib/api.ts';
import { answerApproval, approvalScreenshotUrl, type ApprovalState } from '../../../lib/credentials-api.ts';
import { detailOr, HttpError } from '../../../lib/http.ts';
import type { Agent, CredentialApproval } from '../../../lib/types.ts';
import { mutate, useResource } from '../../../lib/use-resource.ts';
import { useScreenshot } from '../../../lib/use-screenshot.ts';
import { formatTime } from '../../../ui/trace-format.ts';
import { formatTimeLeft, useTimeLeft } from './use-time-left.ts';

const FIELD_PHRASES: Record<string, string> = {
  username: 'the username',
  password: 'the password',
  totp: 'a TOTP code',
  sign_in: 'the username and password',
};

const ANSWERED: Record<ApprovalState, string> = { approved: 'Approved', denied: 'Denied', expired: 'Expired: counts as denied' };

/** What the card asks, as one sentence. */
export function approvalQuestion(approval: CredentialApproval, agentName?: string): string {
  const field = FIELD_PHRASES[approval.field] ?? approval.field;
  return `${agentName || 'The agent'} wants to type ${field} of ${approval.credential} into ${approval.target}.`;
}

export function CredentialApprovalCard({ approval }: { approval: CredentialApproval }) {
  const titleId = useId();
  // The agent screen polls this key already; the card only reads it (no request while the copy is fresh).
  const { data: agent } = useResource<Agent>(agentPath(approval.agent_id), { freshFor: 60_000, revalidateOnFocus: false });
  const screenshot = useScreenshot(approvalScreenshotUrl(approval.id));
  const left = useTimeLeft(approval.expires_at);
  const [busy, setBusy] = useState(false);
  const [answered, setAnswered] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const answer = async (approve: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const { state } = await answerApproval(approval.id, approve);
      setAnswered(ANSWERED[state] ?? state);
    } catch (err) {
      // 409: answered elsewhere or expired; its detail says which, and there is nothing left to press.
      if (err instanceof HttpError && err.status === 409) setAnswered('');
      else setBusy(false);
      setError(detailOr(err, 'Failed to send the answer'));
      return;
    }
    // The run goes on (or not) on the server: fetch the thread now rather than at the next poll.
    void mutate(agentPath(approval.agent_id));
  };

  const done = answered !== null;
  return (
    <section className="credential-approval" aria-labelledby={titleId}>
      <p id={titleId} className="credential-approval-title">Approve a sign-in?</p>
      <p className="message-text">{approvalQuestion(approval, agent?.name)}</p>
      <p className="credential-approval-time">An approval also covers the rest of this sign-in (its other fields) for 2 minutes.</p>
      {screenshot && (
        <img className="credential-approval-shot" src={screenshot} alt="The screen the agent saw when it asked" loading="lazy" />
      )}
      <p className="credential-approval-time">
        {left > 0 ? (
          <>{formatTimeLeft(left)} left to answer (until <time dateTime={approval.expires_at}>{formatTime(approval.expires_at)}</time>)</>
        ) : (
          <>No answer by <time dateTime={approval.expires_at}>{formatTime(approval.expires_at)}</time>: counts as denied</>
        )}
      </p>
      <div className="credential-approval-actions">
        <button type="button" className="button button-primary" disabled={busy || done} onClick={() => void answer(true)}>Approve</button>
        <button type="button" className="button" disabled={busy || done} onClick={() => void answer(false)}>Deny</button>
        <p className="credential-approval-answer" role="status">{answered}</p>
      </div>
      {error && <p className="error-text" role="alert">{error}</p>}
    </section>
  );
}
