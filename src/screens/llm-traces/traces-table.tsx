// The LLM Traces page's table (spec §2): ID, Owner, Timestamp, Thread, Cache, In, Out, Cost, Latency.
// A click anywhere on a row opens the trace; the ID is also a button for keyboard users.
import type { TraceRow } from '../../lib/traces-api.ts';
import { formatCost, formatDateTime, formatLatency, formatTokens, NO_DATA } from '../../ui/trace-format.ts';

type TracesTableProps = {
  rows: TraceRow[];
  onOpen: (id: number) => void;
  busy?: boolean;
};

export function TracesTable({ rows, onOpen, busy = false }: TracesTableProps) {
  return (
    <div className="traces-table-scroll">
      <table className="traces-table" aria-busy={busy || undefined}>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Owner</th>
            <th scope="col">Timestamp</th>
            <th scope="col">Thread</th>
            <th scope="col" data-numeric>Cache</th>
            <th scope="col" data-numeric>In</th>
            <th scope="col" data-numeric>Out</th>
            <th scope="col" data-numeric>Cost</th>
            <th scope="col" data-numeric>Latency</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr>
              <td colSpan={9} className="traces-table-empty">No traces found.</td>
            </tr>
          )}
          {rows.map((row) => (
            <tr key={row.id} className="traces-table-row" onClick={() => onOpen(row.id)}>
              <td>
                <button
                  type="button"
                  className="link-button traces-table-id"
                  title={`Open trace #${row.id}`}
                  onClick={(event) => {
                    event.stopPropagation();
                    onOpen(row.id);
                  }}
                >
                  {row.id}
                </button>
              </td>
              <td className="traces-table-owner">{row.owner_email || (row.owner_id ? `#${row.owner_id}` : NO_DATA)}</td>
              <td className="traces-table-time"><time dateTime={row.created_at}>{formatDateTime(row.created_at)}</time></td>
              <td className="traces-table-thread" title={row.thread_name ?? undefined}>{row.thread_name || NO_DATA}</td>
              <td data-numeric>{formatTokens(row.cache_read_tokens)}</td>
              <td data-numeric>{formatTokens(row.input_tokens)}</td>
              <td data-numeric>{formatTokens(row.output_tokens)}</td>
              <td data-numeric>{formatCost(row.estimated_cost)}</td>
              <td data-numeric>{formatLatency(row.latency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
