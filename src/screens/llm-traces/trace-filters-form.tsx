// The filter fields of the LLM Traces page (spec §2, §5): Owner (admins only), Thread Name, ID From/To
// and Timestamp From/To. Typed text lives in the draft; the page validates and applies it.
import { useId } from 'react';
import type { TraceOwner } from '../../lib/traces-api.ts';
import { EMPTY_DRAFT, type FilterDraft, type FilterErrors } from './trace-filters.ts';

type TraceFiltersFormProps = {
  draft: FilterDraft;
  errors: FilterErrors;
  onChange: (draft: FilterDraft) => void;
  /** Null hides the Owner filter (non-admins). */
  owners: TraceOwner[] | null;
  threadNames: string[];
};

export function TraceFiltersForm({ draft, errors, onChange, owners, threadNames }: TraceFiltersFormProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const set = (patch: Partial<FilterDraft>) => onChange({ ...draft, ...patch });
  // A name picked for one owner may not exist for another; keep it listed so the select shows it.
  const names = draft.threadName && !threadNames.includes(draft.threadName) ? [draft.threadName, ...threadNames] : threadNames;
  const isEmpty = Object.entries(draft).every(([key, value]) => value === EMPTY_DRAFT[key as keyof FilterDraft]);

  const text = (field: keyof FilterErrors, label: string, type: 'id' | 'datetime') => {
    const error = errors[field];
    const errorId = `${id}-${field}-error`;
    return (
      <label className="field trace-filter" data-kind={type}>
        <span>{label}</span>
        <input
          type={type === 'id' ? 'text' : 'datetime-local'}
          inputMode={type === 'id' ? 'numeric' : undefined}
          autoComplete="off"
          placeholder={type === 'id' ? 'Any' : undefined}
          value={draft[field]}
          onChange={(e) => set({ [field]: e.target.value })}
          aria-invalid={error ? true : undefined}
          aria-describedby={[error ? errorId : '', type === 'datetime' ? hintId : ''].filter(Boolean).join(' ') || undefined}
        />
        {error && <small id={errorId} className="field-error">{error}</small>}
      </label>
    );
  };

  return (
    <form className="trace-filters" aria-label="Trace filters" onSubmit={(e) => e.preventDefault()}>
      <div className="trace-filters-grid">
        {owners && (
          <label className="field trace-filter">
            <span>Owner</span>
            <select value={draft.ownerId} onChange={(e) => set({ ownerId: e.target.value, threadName: '' })}>
              <option value="">All</option>
              {owners.map((owner) => (
                <option key={owner.id} value={String(owner.id)}>{owner.email}</option>
              ))}
            </select>
          </label>
        )}
        <label className="field trace-filter">
          <span>Thread Name</span>
          <select value={draft.threadName} onChange={(e) => set({ threadName: e.target.value })}>
            <option value="">All</option>
            {names.map((name) => (
              <option key={name} value={name}>{name}</option>
            ))}
          </select>
        </label>
        {text('idFrom', 'ID From', 'id')}
        {text('idTo', 'ID To', 'id')}
        {text('createdFrom', 'Timestamp From', 'datetime')}
        {text('createdTo', 'Timestamp To', 'datetime')}
      </div>
      <div className="trace-filters-foot">
        <p id={hintId} className="trace-filters-hint muted">
          Timestamps are in your local time and are sent to the server in UTC (YYYY-MM-DD HH:MM).
        </p>
        <button type="button" className="link-button" onClick={() => onChange(EMPTY_DRAFT)} disabled={isEmpty}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
