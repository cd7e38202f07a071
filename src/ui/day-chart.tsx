// A per-day bar chart as inline SVG (no chart library), shared by the LLM Traces cost chart and the
// billing page's daily spend: bars for a value per day, optionally a line for a count per day. The
// SVG stretches to the width; axis labels are HTML around it so they stay readable at any size.
import { useId } from 'react';

/** One UTC day ('YYYY-MM-DD'), its value (the bars) and optionally a count (the line). */
export type DayPoint = { day: string; value: number; count?: number };

/** Gaps between days are filled with zeros up to this span; longer spans show only days with data. */
const MAX_FILLED_DAYS = 120;
const DAY_MS = 86_400_000;

/** Fills the days between the first and the last with zeros; `minDays` widens a short range backwards. */
export function fillDays(points: DayPoint[], minDays = 7): DayPoint[] {
  const sorted = [...points].sort((a, b) => a.day.localeCompare(b.day));
  if (sorted.length === 0) return sorted;
  const last = Date.parse(`${sorted.at(-1)!.day}T00:00:00Z`);
  const first = Math.min(Date.parse(`${sorted[0].day}T00:00:00Z`), last - (minDays - 1) * DAY_MS);
  return daySpan(sorted, first, last);
}

/** Every day from `start` to `end` (inclusive, 'YYYY-MM-DD'), with zeros where `points` has none. */
export function daysBetween(points: DayPoint[], start: string, end: string): DayPoint[] {
  return daySpan(points, Date.parse(`${start}T00:00:00Z`), Date.parse(`${end}T00:00:00Z`));
}

function daySpan(points: DayPoint[], first: number, last: number): DayPoint[] {
  const span = Math.round((last - first) / DAY_MS) + 1;
  if (!Number.isFinite(span) || span < 1 || span > MAX_FILLED_DAYS) return points;
  const byDay = new Map(points.map((p) => [p.day, p]));
  return Array.from({ length: span }, (_, i) => {
    const day = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, value: 0, count: 0 };
  });
}

/** The smallest 1, 2 or 5 × 10^n at or above `value`, so axis labels are round numbers. */
export function niceCeil(value: number): number {
  if (!(value > 0)) return 0;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= value * (1 - 1e-9)) return step * magnitude;
  return 10 * magnitude;
}

export function dayLabel(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

type DayChartProps = {
  /** Caption title, e.g. 'Cost per day'. */
  title: string;
  /** Caption summary, e.g. '$1.75 · 7 calls'. */
  summary: string;
  /** The SVG's accessible title. */
  label: string;
  /** Already filled (fillDays / daysBetween). */
  points: DayPoint[];
  formatValue: (value: number) => string;
  /** Legend name of the bars. */
  valueName: string;
  /** A line for the counts, with its legend name and format. */
  counts?: { name: string; format: (count: number) => string };
  emptyText: string;
};

const HEIGHT = 100; // viewBox units; the bars' area, scaled to the CSS height

export function DayChart({ title, summary, label, points: days, formatValue, valueName, counts, emptyText }: DayChartProps) {
  const titleId = useId();
  const descId = useId();
  const valueMax = niceCeil(Math.max(0, ...days.map((p) => Number(p.value) || 0)));
  // At least 2, so the middle label stays a whole number.
  const countMax = Math.max(2, niceCeil(Math.max(0, ...days.map((p) => Number(p.count) || 0))));
  const n = Math.max(days.length, 1);
  const y = (value: number, max: number) => (max > 0 ? HEIGHT - (value / max) * HEIGHT : HEIGHT);
  const range = days.length > 0 ? `${dayLabel(days[0].day)} to ${dayLabel(days.at(-1)!.day)}` : '';
  const describe = (p: DayPoint) => `${p.day}: ${formatValue(p.value)}${counts ? `, ${counts.format(p.count ?? 0)}` : ''}`;
  const middle = days.length > 2 ? Math.floor((days.length - 1) / 2) : -1;

  return (
    <figure className="day-chart">
      <figcaption className="day-chart-caption">
        <span className="day-chart-title">{title}</span>
        <span className="day-chart-total">{summary}</span>
        <span className="day-chart-legend" aria-hidden="true">
          <span className="day-chart-key" data-series="value" /> {valueName}
          {counts && <><span className="day-chart-key" data-series="count" /> {counts.name}</>}
        </span>
      </figcaption>
      {days.length === 0 ? (
        <p className="day-chart-empty muted">{emptyText}</p>
      ) : (
        <div className="day-chart-plot" data-counts={counts ? '' : undefined}>
          <div className="day-chart-axis" data-side="left" aria-hidden="true">
            {/* With nothing spent (the offline model is free) only the zero line is labelled. */}
            <span>{valueMax > 0 ? formatValue(valueMax) : ''}</span>
            <span>{valueMax > 0 ? formatValue(valueMax / 2) : ''}</span>
            <span>{formatValue(0)}</span>
          </div>
          <div className="day-chart-area">
            <svg className="day-chart-svg" role="img" aria-labelledby={`${titleId} ${descId}`} viewBox={`0 0 ${n} ${HEIGHT}`} preserveAspectRatio="none">
              <title id={titleId}>{label}</title>
              <desc id={descId}>
                {`${range}: ${summary}. `}
                {days.filter((p) => p.value > 0 || (p.count ?? 0) > 0).map((p) => `${describe(p)}.`).join(' ')}
              </desc>
              {[0, HEIGHT / 2, HEIGHT].map((gy) => (
                <line key={gy} className="day-chart-grid" x1={0} x2={n} y1={gy} y2={gy} vectorEffect="non-scaling-stroke" />
              ))}
              {days.map((p, i) => {
                const top = y(Number(p.value) || 0, valueMax);
                return (
                  <rect key={p.day} className="day-chart-bar" x={i + 0.15} width={0.7} y={top} height={HEIGHT - top}>
                    <title>{describe(p)}</title>
                  </rect>
                );
              })}
              {counts && (
                <polyline className="day-chart-line" points={days.map((p, i) => `${i + 0.5},${y(p.count ?? 0, countMax)}`).join(' ')}
                  vectorEffect="non-scaling-stroke" />
              )}
            </svg>
            <div className="day-chart-days" aria-hidden="true">
              <span style={{ left: 0 }}>{dayLabel(days[0].day)}</span>
              {middle > 0 && <span style={{ left: `${((middle + 0.5) / n) * 100}%` }} data-align="center">{dayLabel(days[middle].day)}</span>}
              {days.length > 1 && <span style={{ right: 0 }}>{dayLabel(days.at(-1)!.day)}</span>}
            </div>
          </div>
          {counts && (
            <div className="day-chart-axis" data-side="right" aria-hidden="true">
              <span>{countMax.toLocaleString('en-US')}</span>
              <span>{(countMax / 2).toLocaleString('en-US')}</span>
              <span>0</span>
            </div>
          )}
        </div>
      )}
    </figure>
  );
}
