// The user's other devices that get notifications: each with its events and when it last got one, and Remove.
import { useState } from 'react';
import { normalizeError, type ApiError } from '../../../lib/http.ts';
import { pushEventLabel, removePushDevice, type PushDevice } from '../../../lib/push-api.ts';
import { formatDateTime } from '../../../ui/trace-format.ts';

const lastSent = (device: PushDevice) => (device.last_sent_at ? `Last notified ${formatDateTime(device.last_sent_at)}` : 'Not notified yet');

type Props = { devices: PushDevice[] | undefined; error: ApiError | undefined; onRemoved: (id: number) => void };

export function OtherDevices({ devices, error, onRemoved }: Props) {
  const [removing, setRemoving] = useState<number | null>(null);
  const [failed, setFailed] = useState<string | null>(null);

  const remove = async (device: PushDevice) => {
    setRemoving(device.id);
    setFailed(null);
    try {
      await removePushDevice(device.id);
      onRemoved(device.id);
    } catch (err) {
      const { status_code, detail } = normalizeError(err);
      if (status_code === 404) onRemoved(device.id); // gone already: the list catches up
      else setFailed(detail);
    } finally {
      setRemoving(null);
    }
  };

  return (
    <section className="push-card" aria-labelledby="push-other-devices">
      <h3 id="push-other-devices">Your other devices</h3>
      {error && <p className="error-text" role="alert">Error loading your devices: {error.detail}</p>}
      {!devices && !error && <p className="muted" role="status">Loading devices...</p>}
      {devices && devices.length === 0 && <p className="muted">No other devices get notifications.</p>}
      {devices && devices.length > 0 && (
        <ul className="push-devices" aria-label="Other devices">
          {devices.map((device) => (
            <li key={device.id} className="push-device">
              <div className="push-device-text">
                <strong>{device.label}</strong>
                <span className="muted">{device.events.map(pushEventLabel).join(', ') || 'No events'}</span>
                <span className="muted push-device-dates">
                  Added {formatDateTime(device.created_at)} · {lastSent(device)}
                </span>
              </div>
              <button type="button" className="button" aria-label={`Remove ${device.label}`} disabled={removing !== null}
                onClick={() => void remove(device)}>
                {removing === device.id ? 'Removing...' : 'Remove'}
              </button>
            </li>
          ))}
        </ul>
      )}
      {failed && <p className="form-error" role="alert">{failed}</p>}
    </section>
  );
}
