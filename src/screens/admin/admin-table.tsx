// The admin screens' tables: a header row, and rows that open a page on click (the first cell holds
// the link, so the row is reachable by keyboard and opens in a new tab with a middle click).
import type { ReactNode } from 'react';
import { Link, navigate } from '../../lib/router.ts';

export type Column<T> = { label: string; numeric?: boolean; cell: (row: T) => ReactNode };

type AdminTableProps<T> = {
  label: string;
  columns: Column<T>[];
  rows: T[];
  href: (row: T) => string;
  /** A refetch is in flight: the rows dim. */
  busy?: boolean;
};

export function AdminTable<T extends { id: number }>({ label, columns, rows, href, busy }: AdminTableProps<T>) {
  const [first, ...rest] = columns;
  return (
    <div className="table-scroll">
      <table className="data-table admin-table" aria-label={label} aria-busy={busy || undefined}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col" data-numeric={c.numeric || undefined}>{c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} className="admin-row" onClick={() => navigate(href(row))}>
              <td data-numeric={first.numeric || undefined}>
                <Link href={href(row)} onClick={(ev) => ev.stopPropagation()}>{first.cell(row)}</Link>
              </td>
              {rest.map((c) => (
                <td key={c.label} data-numeric={c.numeric || undefined}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
