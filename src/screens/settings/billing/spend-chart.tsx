// Daily spend over the whole billing period as bars (src/ui/day-chart.tsx draws it).
import type { UsageDetail } from '../../../lib/billing-api.ts';
import { DayChart, daysBetween } from '../../../ui/day-chart.tsx';
import { formatMoney } from './money.ts';

const dayOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

export function SpendChart({ usage }: { usage: UsageDetail }) {
  const points = (usage.days ?? []).map((d) => ({ day: d.day, value: d.cost * 100 }));
  const days = daysBetween(points, dayOf(usage.period_start), dayOf(usage.period_end - 1));
  const money = (cents: number) => formatMoney(cents, usage.currency);
  return (
    <DayChart
      title="Daily spend"
      summary={`${money(usage.total)} this period`}
      label="Spend per day this billing period"
      points={days}
      formatValue={money}
      valueName="Spend"
      emptyText="No spend this period."
    />
  );
}
