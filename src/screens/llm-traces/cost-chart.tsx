// The LLM Traces page's chart: estimated cost per day as bars, the number of calls as a line
// (src/ui/day-chart.tsx draws it). A range shorter than a week is widened backwards to one.
import type { CostByDay } from '../../lib/traces-api.ts';
import { DayChart, fillDays } from '../../ui/day-chart.tsx';
import { formatCost } from '../../ui/trace-format.ts';

const calls = (count: number) => `${count.toLocaleString('en-US')} ${count === 1 ? 'call' : 'calls'}`;

export function CostChart({ points }: { points: CostByDay[] }) {
  const days = fillDays(points.map((p) => ({ day: p.day, value: Number(p.cost) || 0, count: Number(p.count) || 0 })));
  const totalCost = days.reduce((sum, p) => sum + p.value, 0);
  const totalCount = days.reduce((sum, p) => sum + (p.count ?? 0), 0);
  return (
    <DayChart
      title="Cost per day"
      summary={`${formatCost(totalCost)} in total over ${calls(totalCount)}`}
      label="Estimated cost per day"
      points={days}
      formatValue={formatCost}
      valueName="Cost"
      counts={{ name: 'Calls', format: calls }}
      emptyText="No cost data for these filters."
    />
  );
}
