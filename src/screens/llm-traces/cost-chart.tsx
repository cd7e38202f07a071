// A small cost-over-time chart for the LLM Traces page, drawn as inline SVG (no chart library):
// bars for the estimated cost per day, a line for the number of calls. The SVG stretches to the
// width; axis labels are HTML around it so they stay readable at any size.
import { useId } from 'react';
import type { CostByDay } from '../../lib/traces-api.ts';
import { formatCost } from '../agent/traces/format.ts';

/** Gaps between days are filled with zeros up to this span; longer spans show only days with calls. */
const MAX_FILLED_DAYS = 120;
/** A range shorter than a week is widened backwards to one, so a single day is not one huge bar. */
const MIN_DAYS = 7;
const DAY_MS = 86_400_000;

export function fillDays(points: CostByDay[]): CostByDay[] {
  const sorted = [...points].sort((a, b) => a.day.localeCompare(b.day));
  if (sorted.length === 0) return sorted;
  const last = Date.parse(`${sorted.at(-1)!.day}T00:00:00Z`);
  const first = Math.min(Date.parse(`${sorted[0].day}T00:00:00Z`), last - (MIN_DAYS - 1) * DAY_MS);
  const span = Math.round((last - first) / DAY_MS) + 1;
  if (!Number.isFinite(span) || span > MAX_FILLED_DAYS) return sorted;
  const byDay = new Map(sorted.map((p) => [p.day, p]));
  return Array.from({ length: span }, (_, i) => {
    const day = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, cost: 0, count: 0 };
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

const HEIGHT = 100; // viewBox units; the bars' area, scaled to the CSS height

export function CostChart({ points }: { points: CostByDay[] }) {
  const titleId = useId();
  const descId = useId();
  const days = fillDays(points);
  const totalCost = days.reduce((sum, p) => sum + (Number(p.cost) || 0), 0);
  const totalCount = days.reduce((sum, p) => sum + (Number(p.count) || 0), 0);
  const costMax = niceCeil(Math.max(0, ...days.map((p) => Number(p.cost) || 0)));
  // At least 2, so the middle label stays a whole number of calls.
  const countMax = Math.max(2, niceCeil(Math.max(0, ...days.map((p) => Number(p.count) || 0))));
  const n = Math.max(days.length, 1);
  const y = (value: number, max: number) => (max > 0 ? HEIGHT - (value / max) * HEIGHT : HEIGHT);
  const range = days.length > 0 ? `${dayLabel(days[0].day)} to ${dayLabel(days.at(-1)!.day)}` : '';
  const calls = (count: number) => `${count.toLocaleString('en-US')} ${count === 1 ? 'call' : 'calls'}`;
  const linePoints = days.map((p, i) => `${i + 0.5},${y(p.count, countMax)}`).join(' ');
  const middle = days.length > 2 ? Math.floor((days.length - 1) / 2) : -1;

  return (
    <figure className="cost-chart">
      <figcaption className="cost-chart-caption">
        <span className="cost-chart-title">Cost per day</span>
        <span className="cost-chart-total">{formatCost(totalCost)} · {calls(totalCount)}</span>
        <span className="cost-chart-legend" aria-hidden="true">
          <span className="cost-chart-key" data-series="cost" /> Cost
          <span className="cost-chart-key" data-series="calls" /> Calls
        </span>
      </figcaption>
      {days.length === 0 ? (
        <p className="cost-chart-empty muted">No cost data for these filters.</p>
      ) : (
        <div className="cost-chart-plot">
          <div className="cost-chart-axis" data-side="left" aria-hidden="true">
            {/* With nothing spent (the offline model is free) only the zero line is labelled. */}
            <span>{costMax > 0 ? formatCost(costMax) : ''}</span>
            <span>{costMax > 0 ? formatCost(costMax / 2) : ''}</span>
            <span>$0</span>
          </div>
          <div className="cost-chart-area">
            <svg
              className="cost-chart-svg"
              role="img"
              aria-labelledby={`${titleId} ${descId}`}
              viewBox={`0 0 ${n} ${HEIGHT}`}
              preserveAspectRatio="none"
            >
              <title id={titleId}>Estimated cost per day</title>
              <desc id={descId}>
                {`${range}: ${formatCost(totalCost)} in total over ${calls(totalCount)}. `}
                {days.filter((p) => p.count > 0).map((p) => `${p.day}: ${formatCost(p.cost)}, ${calls(p.count)}.`).join(' ')}
              </desc>
              {[0, HEIGHT / 2, HEIGHT].map((gy) => (
                <line key={gy} className="cost-chart-grid" x1={0} x2={n} y1={gy} y2={gy} vectorEffect="non-scaling-stroke" />
              ))}
              {days.map((p, i) => {
                const top = y(Number(p.cost) || 0, costMax);
                return (
                  <rect key={p.day} className="cost-chart-bar" x={i + 0.15} width={0.7} y={top} height={HEIGHT - top}>
                    <title>{`${p.day}: ${formatCost(p.cost)}, ${calls(p.count)}`}</title>
                  </rect>
                );
              })}
              <polyline className="cost-chart-line" points={linePoints} vectorEffect="non-scaling-stroke" />
            </svg>
            <div className="cost-chart-days" aria-hidden="true">
              <span style={{ left: 0 }}>{dayLabel(days[0].day)}</span>
              {middle > 0 && <span style={{ left: `${((middle + 0.5) / n) * 100}%` }} data-align="center">{dayLabel(days[middle].day)}</span>}
              {days.length > 1 && <span style={{ right: 0 }}>{dayLabel(days.at(-1)!.day)}</span>}
            </div>
          </div>
          <div className="cost-chart-axis" data-side="right" aria-hidden="true">
            <span>{countMax.toLocaleString('en-US')}</span>
            <span>{(countMax / 2).toLocaleString('en-US')}</span>
            <span>0</span>
          </div>
        </div>
      )}
    </figure>
  );
}
