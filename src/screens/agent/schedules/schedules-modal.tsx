// Schedules (admin more-options menu, spec §2/§4/§5/§8): a table Frequency, Time/Details, Message,
// Actions of the agent's schedules. Rows go new → editing → saved: '+ Add Schedule' opens a new
// row, Save checks the shared rules (the spec's messages) before sending, Edit reopens a saved row.
// Times are shown and typed in local time and stored in UTC; each row shows its next run.
import { useRef, useState } from 'react';
import { useEditable } from '../../../lib/use-editable.ts';
import { HttpError, normalizeError } from '../../../lib/http.ts';
import { createSchedule, deleteSchedule, listSchedules, updateSchedule, type Schedule } from '../../../lib/schedules-api.ts';
import { Modal } from '../../../ui/modal.tsx';
import { fromDraft, newDraft, toDraft, type ScheduleDraft } from './schedule-form.ts';
import { EditRow, SavedRow } from './schedule-row.tsx';

export const DELETE_QUESTION = 'Delete this schedule?';

/** saved: schedule only; editing: schedule and draft; new: draft only. */
type Row = { key: string; schedule: Schedule | null; draft: ScheduleDraft | null; error: string | null; detail: string | null; busy: boolean };

type SchedulesModalProps = { agentId: number; onClose: () => void };

export function SchedulesModal({ agentId, onClose }: SchedulesModalProps) {
  const { value: rows, setValue: setRows, error: loadError, retry } = useEditable(async () => (await listSchedules(agentId)).map(savedRow), agentId);
  const [deleteFailed, setDeleteFailed] = useState(false);
  const newKeys = useRef(0);

  const patch = (key: string, change: Partial<Row>) => setRows((all) => all && all.map((r) => (r.key === key ? { ...r, ...change } : r)));
  const remove = (key: string) => setRows((all) => all && all.filter((r) => r.key !== key));

  const add = () => {
    const key = `new-${++newKeys.current}`;
    setRows((all) => [...(all ?? []), { key, schedule: null, draft: newDraft(), error: null, detail: null, busy: false }]);
  };

  const save = async (row: Row) => {
    if (!row.draft || row.busy) return;
    const checked = fromDraft(row.draft);
    if ('error' in checked) return patch(row.key, { error: checked.error, detail: null });
    patch(row.key, { busy: true, error: null, detail: null });
    try {
      const saved = row.schedule ? await updateSchedule(row.schedule.id, checked.rule) : await createSchedule(agentId, checked.rule);
      patch(row.key, { schedule: saved, draft: null, busy: false });
    } catch (error) {
      const told = error instanceof HttpError && error.status === 422;
      patch(row.key, { busy: false, error: 'Failed to save schedule', detail: told ? normalizeError(error).detail : null });
    }
  };

  const cancel = (row: Row) => (row.schedule ? patch(row.key, { draft: null, error: null, detail: null }) : remove(row.key));

  const destroy = async (row: Row) => {
    if (!row.schedule || !window.confirm(DELETE_QUESTION)) return;
    setDeleteFailed(false);
    patch(row.key, { busy: true });
    try {
      await deleteSchedule(row.schedule.id);
      remove(row.key);
    } catch {
      patch(row.key, { busy: false });
      setDeleteFailed(true);
    }
  };

  return (
    <Modal
      title="Schedules"
      onClose={onClose}
      size="large"
      footer={rows && <button type="button" className="button button-primary" onClick={add}>+ Add Schedule</button>}
    >
      {loadError !== null ? (
        <div className="editor-error" role="alert">
          <p>Failed to load schedules</p>
          <button type="button" className="button" onClick={retry}>Retry</button>
        </div>
      ) : !rows ? (
        <p className="editor-loading" role="status">Loading schedules...</p>
      ) : (
        <div className="schedules">
          {deleteFailed && <p className="form-error" role="alert">Failed to delete schedule</p>}
          <div className="schedules-table-scroll">
            <table className="schedules-table">
              <thead>
                <tr>
                  <th scope="col">Frequency</th>
                  <th scope="col">Time/Details</th>
                  <th scope="col">Message</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {rows.length === 0 && (
                  <tr>
                    <td colSpan={4} className="schedules-empty">No schedules</td>
                  </tr>
                )}
                {rows.map((row) =>
                  row.draft ? (
                    <EditRow
                      key={row.key}
                      draft={row.draft}
                      state={row.schedule ? 'editing' : 'new'}
                      error={row.error}
                      detail={row.detail}
                      saving={row.busy}
                      onChange={(draft) => patch(row.key, { draft })}
                      onSave={() => save(row)}
                      onCancel={() => cancel(row)}
                    />
                  ) : (
                    <SavedRow
                      key={row.key}
                      schedule={row.schedule!}
                      busy={row.busy}
                      onEdit={() => patch(row.key, { draft: toDraft(row.schedule!), error: null, detail: null })}
                      onDelete={() => destroy(row)}
                    />
                  ),
                )}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </Modal>
  );
}

function savedRow(schedule: Schedule): Row {
  return { key: `saved-${schedule.id}`, schedule, draft: null, error: null, detail: null, busy: false };
}
