// Model prices in USD per million tokens, as dated data (docs/protocols.md §2.6), and the cost of
// one call from its usage. Four explicit rates per model (some models break the old multipliers).
// The rows of MODEL_PRICES_FILE (same shape, read by config.ts) go ahead of this table: a provider gets
// both as its `prices` (models/choose.ts).
import type { Price } from '../config/index.ts';
import type { Usage } from './types.ts';

export type { Price };

export const PRICES: Price[] = [
  { model: 'claude-opus-5-5', input: 4, cache_write_5m: 5, cache_write_1h: 8, cache_read: 0.2, output: 20, source: 'official opus-5-5 overview, Sept 2026' },
  ...['claude-opus-5', 'claude-opus-4-8', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-opus-4-5'].map((model) => (
    { model, input: 5, cache_write_5m: 6.25, cache_write_1h: 10, cache_read: 0.5, output: 25, source: 'platform.claude.com Pricing' })),
  ...['claude-opus-4-1', 'claude-opus-4'].map((model) => (
    { model, input: 15, cache_write_5m: 18.75, cache_write_1h: 30, cache_read: 1.5, output: 75, source: 'Pricing (retired on the 1P API)' })),
  { model: 'claude-sonnet-5-5', input: 2, cache_write_5m: 2.5, cache_write_1h: 4, cache_read: 0.2, output: 10, source: 'official page at launch' },
  {
    model: 'claude-sonnet-5-5', from: '2026-10-07', input: 2, cache_write_5m: 2.5, cache_write_1h: 4, cache_read: 0.1, output: 10,
    source: 'third-party tracker notes, unverified',
  },
  { model: 'claude-sonnet-5', input: 2, cache_write_5m: 2.5, cache_write_1h: 4, cache_read: 0.2, output: 10, source: 'official sonnet-5 overview' },
  ...['claude-sonnet-4-6', 'claude-sonnet-4-5', 'claude-sonnet-4', 'claude-3-7-sonnet'].map((model) => (
    { model, input: 3, cache_write_5m: 3.75, cache_write_1h: 6, cache_read: 0.3, output: 15, source: 'Pricing, early 2026' })),
  {
    model: 'claude-haiku-5-5', input: 0.1, cache_write_5m: 0.125, cache_write_1h: 0.2, cache_read: 0.01, output: 0.5,
    longThreshold: 100_000, longMultiplier: 5, source: 'third-party trackers, unverified',
  },
  { model: 'claude-haiku-4-5', input: 1, cache_write_5m: 1.25, cache_write_1h: 2, cache_read: 0.1, output: 5, source: 'Pricing' },
  { model: 'claude-3-5-haiku', input: 0.8, cache_write_5m: 1, cache_write_1h: 1.6, cache_read: 0.08, output: 4, source: 'Pricing' },
  { model: 'claude-fable-5-1', input: 10, cache_write_5m: 12.5, cache_write_1h: 20, cache_read: 0.25, output: 50, source: 'Pricing (newest snapshot)' },
];

/** The price row for a model id at a date in `table`: the longest matching prefix, then the latest `from` (earlier rows win ties). */
export function priceFor(model: string, at: Date = new Date(), table: readonly Price[] = PRICES): Price | null {
  const id = model.toLowerCase().replace(/^anthropic\//, '').replace(/\./g, '-');
  const day = at.toISOString().slice(0, 10);
  let best: Price | null = null;
  for (const row of table) {
    if (!id.startsWith(row.model)) continue;
    if (row.from && row.from > day) continue;
    if (!best || row.model.length > best.model.length || (row.model.length === best.model.length && (row.from ?? '') > (best.from ?? ''))) best = row;
  }
  return best;
}

/** USD for one call; unknown models (local ones served by vLLM or Ollama) cost 0. */
export function costOf(model: string, usage: Usage, at: Date = new Date(), table: readonly Price[] = PRICES): number {
  const price = priceFor(model, at, table);
  if (!price) return 0;
  const write1h = usage.cache_write_1h_tokens ?? 0;
  const write5m = Math.max(0, usage.cache_write_tokens - write1h);
  const prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
  const factor = price.longThreshold && price.longMultiplier && prompt > price.longThreshold ? price.longMultiplier : 1;
  const micro =
    usage.input_tokens * price.input +
    write5m * price.cache_write_5m +
    write1h * price.cache_write_1h +
    usage.cache_read_tokens * price.cache_read +
    usage.output_tokens * price.output;
  return (micro * factor) / 1_000_000;
}
