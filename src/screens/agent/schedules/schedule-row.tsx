// One row of the Schedules table. A saved row reads (Frequency, Time/Details with the next run,
// Message, Edit/Delete); a new or edited row is a form in the same four cells.
import { useId } from 'react';
import type { Schedule } from '../../../lib/schedules-api.ts';
import { FREQUENCIES, WEEKDAY_LABELS, type Frequency } from '../../../lib/schedule-rules.ts';
import { describe, formatNextRun, FREQUENCY_LABELS, type ScheduleDraft } from './schedule-form.ts';

type SavedRowProps = { schedule: Schedule; busy: boolean; onEdit: () => void; onDelete: () => void };

export function SavedRow({ schedule, busy, onEdit, onDelete }: SavedRowProps) {
  return (
    <tr className="schedule-row" data-state="saved">
      <td>{FREQUENCY_LABELS[schedule.frequency]}</td>
      <td>
        <div className="schedule-details">{describe(schedule)}</div>
        <div className="schedule-next">Next run: <time dateTime={schedule.next_run}>{formatNextRun(schedule.next_run)}</time></div>
      </td>
      <td className="schedule-message" title={schedule.message}>{schedule.message}</td>
      <td className="schedule-actions">
        <button type="button" className="button button-small" onClick={onEdit} disabled={busy}>Edit</button>
        <button type="button" className="button button-small schedule-delete" onClick={onDelete} disabled={busy}>Delete</button>
      </td>
    </tr>
  );
}

type EditRowProps = {
  draft: ScheduleDraft;
  state: 'new' | 'editing';
  /** A validation message, or 'Failed to save schedule'. */
  error: string | null;
  /** The server's words under a save failure, when they say what to change. */
  detail?: string | null;
  saving: boolean;
  onChange: (draft: ScheduleDraft) => void;
  onSave: () => void;
  onCancel: () => void;
};

export function EditRow({ draft, state, error, detail, saving, onChange, onSave, onCancel }: EditRowProps) {
  const errorId = useId();
  const set = (patch: Partial<ScheduleDraft>) => onChange({ ...draft, ...patch });
  const toggle = (day: number) =>
    set({ weekdays: draft.weekdays.includes(day) ? draft.weekdays.filter((d) => d !== day) : [...draft.weekdays, day].sort((a, b) => a - b) });
  const described = error ? errorId : undefined;
  return (
    <>
      <tr className="schedule-row schedule-row-editing" data-state={state} aria-describedby={described}>
        <td>
          <label className="schedule-field">
            <span>Frequency</span>
            <select value={draft.frequency} onChange={(e) => set({ frequency: e.target.value as Frequency })} disabled={saving}>
              {FREQUENCIES.map((f) => <option key={f} value={f}>{FREQUENCY_LABELS[f]}</option>)}
            </select>
          </label>
        </td>
        <td>
          {draft.frequency === 'interval' ? (
            <label className="schedule-field">
              <span>Interval (seconds)</span>
              <input type="number" min={1} step={1} value={draft.interval} onChange={(e) => set({ interval: e.target.value })} disabled={saving} />
            </label>
          ) : (
            <div className="schedule-when">
              <label className="schedule-field">
                <span>Time</span>
                <input type="time" value={draft.time} onChange={(e) => set({ time: e.target.value })} disabled={saving} />
              </label>
              {draft.frequency === 'monthly' && (
                <label className="schedule-field">
                  <span>Day of month</span>
                  <input type="number" min={1} max={31} step={1} value={draft.dayOfMonth}
                    onChange={(e) => set({ dayOfMonth: e.target.value })} disabled={saving} />
                </label>
              )}
              {draft.frequency === 'weekly' && (
                <>
                  <div className="schedule-weekdays" role="group" aria-label="Weekdays">
                    {WEEKDAY_LABELS.map((label, day) => (
                      <button
                        key={label}
                        type="button"
                        className="schedule-weekday"
                        aria-pressed={draft.weekdays.includes(day)}
                        onClick={() => toggle(day)}
                        disabled={saving}
                      >
                        {label}
                      </button>
                    ))}
                  </div>
                  <label className="schedule-field schedule-field-inline">
                    <span>Every</span>
                    <input type="number" min={1} max={52} step={1} value={draft.weekInterval}
                      onChange={(e) => set({ weekInterval: e.target.value })} disabled={saving} aria-label="Week interval" />
                    <span>{draft.weekInterval.trim() === '1' ? 'week' : 'weeks'}</span>
                  </label>
                </>
              )}
            </div>
          )}
        </td>
        <td>
          <label className="schedule-field">
            <span>Message</span>
            <textarea rows={2} value={draft.message} onChange={(e) => set({ message: e.target.value })} disabled={saving}
              placeholder="What the agent should do" />
          </label>
        </td>
        <td className="schedule-actions">
          <button type="button" className="button button-small button-primary" onClick={onSave} disabled={saving}>
            {saving ? 'Saving...' : 'Save'}
          </button>
          <button type="button" className="button button-small" onClick={onCancel} disabled={saving}>Cancel</button>
        </td>
      </tr>
      {error && (
        <tr className="schedule-row-error">
          <td colSpan={4}>
            <div id={errorId} className="form-error" role="alert">
              <p>{error}</p>
              {detail && <p className="schedule-error-detail">{detail}</p>}
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
