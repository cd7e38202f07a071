// The header row of the reports tables: plain names, right-aligned numbers, screen-reader-only labels.
type Column = string | { label: string; numeric?: boolean; hidden?: boolean };

export function TableHead({ columns }: { columns: Column[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => {
          const { label, numeric, hidden } = typeof c === 'string' ? { label: c } : c;
          return (
            <th key={label} scope="col" data-numeric={numeric || undefined}>
              {hidden ? <span className="visually-hidden">{label}</span> : label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
