// The one line every bench script prints per figure; scripts/bench.mjs collects these from stdout.
// value: a number (NaN/null when skipped); target: the budget as text ("< 100 ms", ">= 25 % of bare");
// reference: what the figure is compared with in the same run (a number in `unit`, or text).
export function benchResult(name, value, unit, target, reference) {
  const line = { name, value: Number.isFinite(value) ? Math.round(value * 100) / 100 : null, unit, target };
  if (reference !== undefined) line.reference = typeof reference === 'number' ? Math.round(reference * 100) / 100 : reference;
  console.log(`BENCH_RESULT ${JSON.stringify(line)}`);
}

export const median = (xs) => percentile(xs, 50);
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const i = (p / 100) * (s.length - 1);
  const lo = Math.floor(i);
  return lo === s.length - 1 ? s[lo] : s[lo] + (s[lo + 1] - s[lo]) * (i - lo);
}
