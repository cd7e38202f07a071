// Prev / 'Page N / total pages' / Next, the buttons disabled at the ends (spec §2).
type PagerProps = {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
  /** Names the navigation landmark, e.g. 'Pages of all reports'. @default 'Pages' */
  label?: string;
  className?: string;
};

export function Pager({ page, totalPages, onPage, label = 'Pages', className = '' }: PagerProps) {
  return (
    <nav className={`pager ${className}`.trim()} aria-label={label}>
      <button type="button" className="button button-small" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Prev
      </button>
      <span>Page {page} / {totalPages}</span>
      <button type="button" className="button button-small" onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
        Next
      </button>
    </nav>
  );
}

export const pageCount = (total: number, pageSize: number) => Math.max(1, Math.ceil(total / pageSize));
