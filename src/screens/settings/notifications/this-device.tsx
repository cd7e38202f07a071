// This device's part of the notifications settings: why it cannot take notifications, or the events and the button
// that allows them, or, once on, its events (saved on change), a test notification and turning it off.
import { useState } from 'react';
import { PUSH_EVENTS } from '../../../lib/push-api.ts';
import { EventChoices } from './event-choices.tsx';
import type { usePushDevice } from './use-push-device.ts';

export const BLOCKED = 'Notifications are blocked for this site in this browser. Allow them in the browser\'s site settings, '
  + 'then reload this page.';

export function ThisDevice({ push }: { push: ReturnType<typeof usePushDevice> }) {
  const { status, busy, error, notice } = push;
  const [draft, setDraft] = useState<string[]>([...PUSH_EVENTS]);
  return (
    <section className="push-card" aria-labelledby="push-this-device">
      <h3 id="push-this-device">This device</h3>
      {status.kind === 'checking' && <p className="muted" role="status">Checking this device...</p>}
      {status.kind === 'unsupported' && <p className="push-note" role="status">{status.reason}</p>}
      {status.kind === 'blocked' && <p className="push-note" role="status">{BLOCKED}</p>}
      {status.kind === 'off' && (
        <>
          <p className="muted">Notifications are off on this device.</p>
          <EventChoices chosen={draft} disabled={busy !== null} onChange={setDraft} />
          <div className="push-actions">
            <button type="button" className="button button-primary" disabled={busy !== null || draft.length === 0}
              onClick={() => void push.allow(draft)}>
              {busy === 'allow' ? 'Allowing...' : 'Allow notifications on this device'}
            </button>
          </div>
        </>
      )}
      {status.kind === 'on' && (
        <>
          <p>Notifications are on for <strong>{status.device.label}</strong>.</p>
          <EventChoices chosen={push.events} disabled={busy !== null}
            onChange={(events) => void push.setEvents(status.device, events)} />
          <div className="push-actions">
            <button type="button" className="button" disabled={busy !== null} onClick={() => void push.sendTest(status.device)}>
              {busy === 'test' ? 'Sending...' : 'Send a test notification'}
            </button>
            <button type="button" className="button push-off" disabled={busy !== null} onClick={() => void push.turnOff(status.device)}>
              {busy === 'off' ? 'Turning off...' : 'Turn off on this device'}
            </button>
          </div>
        </>
      )}
      {notice && <p className="push-notice" role="status">{notice}</p>}
      {error && <p className="form-error" role="alert">{error}</p>}
    </section>
  );
}
