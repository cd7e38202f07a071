// The LLM Traces page (/llm-traces, admin; spec §2): filters, a cost-per-day chart, a table of 20
// traces a page with Prev/Next and a reload button; a row opens the trace on its response tab.
// Invalid filters show a message and send nothing: the last valid query stays on screen.
import { useMemo, useState } from 'react';
import { useTitle } from '../../lib/title.tsx';
import {
  costByDayPath, modelStatusPath, TABLE_PAGE_SIZE, threadNamesPath, traceListPath, traceOwnersPath,
  type CostByDay, type ModelStatus, type TraceFilters, type TraceOwner, type TracePage,
} from '../../lib/traces-api.ts';
import { useDebouncedValue } from '../../lib/use-debounced-value.ts';
import { useIsAdmin } from '../../lib/use-is-admin.ts';
import { useResource } from '../../lib/use-resource.ts';
import { ReloadIcon } from '../../ui/icons.tsx';
import { Pager } from '../../ui/pager.tsx';
import { TraceModal } from '../../ui/trace-modal.tsx';
import { CostChart } from './cost-chart.tsx';
import { EMPTY_DRAFT, parseFilters, type FilterDraft } from './trace-filters.ts';
import { TraceFiltersForm } from './trace-filters-form.tsx';
import { TracesTable } from './traces-table.tsx';

/** Typing in a filter waits this long before a request (as the user search does, spec §9). */
export const FILTER_DEBOUNCE_MS = 300;

const STATIC = { freshFor: 5 * 60_000, revalidateOnFocus: false } as const;

export default function LlmTracesScreen() {
  return <LlmTracesPage isAdmin={useIsAdmin()} />;
}

type LlmTracesPageProps = {
  isAdmin: boolean;
  /** @default FILTER_DEBOUNCE_MS */
  debounceMs?: number;
};

export function LlmTracesPage({ isAdmin, debounceMs = FILTER_DEBOUNCE_MS }: LlmTracesPageProps) {
  const [draft, setDraft] = useState<FilterDraft>(EMPTY_DRAFT);
  const settled = useDebouncedValue(draft, debounceMs);
  const { filters, errors } = useMemo(() => parseFilters(settled), [settled]);
  const valid = Object.keys(errors).length === 0;

  // Applied filters only move on to a valid set; derived during render (no effect, no extra request).
  const [applied, setApplied] = useState<TraceFilters>({});
  const filtersKey = JSON.stringify(filters);
  const appliedKey = JSON.stringify(applied);
  if (valid && filtersKey !== appliedKey) setApplied(filters);

  // The page belongs to one set of filters: new filters start again at page 1.
  const [paging, setPaging] = useState({ key: appliedKey, page: 1 });
  const page = paging.key === appliedKey ? paging.page : 1;
  const goTo = (next: number) => setPaging({ key: appliedKey, page: next });

  const [openId, setOpenId] = useState<number | null>(null);

  // The previous page stays on screen while the next one loads, instead of flashing an empty table.
  const list = useResource<TracePage>(traceListPath(applied, page, TABLE_PAGE_SIZE), { keepPreviousData: true });
  const cost = useResource<CostByDay[]>(costByDayPath(applied));
  const owners = useResource<TraceOwner[]>(isAdmin ? traceOwnersPath : null, STATIC);
  const names = useResource<string[]>(threadNamesPath(applied.owner_id));
  const { data: status } = useResource<ModelStatus>(modelStatusPath, STATIC);

  const shown = list.data;
  const totalPages = shown ? Math.max(1, Math.ceil(shown.total_count / (shown.page_size || TABLE_PAGE_SIZE))) : 1;

  const offlineModel = status?.offline ? status.model : null;
  const badge = useMemo(
    () => (offlineModel ? <span className="badge trace-offline" title={`Model: ${offlineModel}`}>Offline model</span> : null),
    [offlineModel],
  );
  useTitle('LLM Traces', badge);

  const reload = () => {
    void list.mutate();
    void cost.mutate();
    void names.mutate();
  };

  // Only admins filter by owner; for everyone else the owner field is left out.
  const ownerChoices = isAdmin ? (owners.data ?? []) : null;

  return (
    <div className="llm-traces">
      <TraceFiltersForm draft={draft} errors={errors} onChange={setDraft} owners={ownerChoices} threadNames={names.data ?? []} />

      {cost.data && <CostChart points={cost.data} />}

      <section className="llm-traces-results" aria-label="Traces">
        <div className="llm-traces-bar">
          <span className="muted" aria-live="polite">
            {shown ? countLabel(shown) : ''}
          </span>
          <button type="button" className="button button-small" onClick={reload} disabled={list.isValidating} aria-label="Reload traces">
            <ReloadIcon className="reload-icon" data-spinning={list.isValidating || undefined} /> Reload
          </button>
        </div>

        {list.error && <p className="form-error" role="alert">Failed to fetch traces</p>}
        {!shown && !list.error && <p className="page-message" role="status">Loading traces…</p>}
        {shown && !list.error && <TracesTable rows={shown.traces} onOpen={setOpenId} busy={list.isValidating} />}

        <Pager page={page} totalPages={totalPages} onPage={goTo} className="llm-traces-pager" />
      </section>

      {openId !== null && (
        <TraceModal traceId={openId} initialTab="response" onClose={() => setOpenId(null)} offlineModel={offlineModel} />
      )}
    </div>
  );
}

function countLabel({ total_count: n, total_count_estimated: estimated }: TracePage): string {
  return `${estimated ? 'about ' : ''}${n.toLocaleString('en-US')} ${n === 1 ? 'trace' : 'traces'}`;
}
