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

/**
 * How sure a ratio of two medians is: the 2.5th and 97.5th percentiles of median(a) / median(b) over 2000
 * resamples of each, drawn with replacement (a bootstrap). Seeded, so one set of samples always prints the same.
 */
export function ratioInterval(a, b, rounds = 2000) {
  let seed = 0x2545f491;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const resample = (xs) => xs.map(() => xs[Math.floor(random() * xs.length)]);
  const ratios = Array.from({ length: rounds }, () => median(resample(a)) / median(resample(b)));
  return [percentile(ratios, 2.5), percentile(ratios, 97.5)];
}
