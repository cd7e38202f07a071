// The model settings (MODEL_PROVIDER's section): the providers' keys, addresses and limits, and MODEL_PRICES_FILE's rows.
import { readFileSync } from 'node:fs';
import { fractions, httpUrl, oneOrZero, positiveOrUnset, refuse, type Env } from './parse.ts';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-5';

/** A model's prices in USD per million tokens: a row of MODEL_PRICES_FILE, and of models/prices.ts's table. */
export type Price = {
  /** Model ids starting with this prefix (date suffixes and the like follow). */
  model: string;
  input: number;
  cache_write_5m: number;
  cache_write_1h: number;
  cache_read: number;
  output: number;
  /** First day (UTC, YYYY-MM-DD) this row applies; the latest row not after the call wins. */
  from?: string;
  /** Prompts above this many tokens bill every rate × longMultiplier. */
  longThreshold?: number;
  longMultiplier?: number;
  source: string;
};

/** Unset (undefined) settings leave the provider's own default. */
export type ModelsConfig = {
  /** OFFLINE_TERMINAL_AT: where the offline model finds the terminal (fractions of the screen). */
  offlineTerminalAt?: [number, number];
  /** OFFLINE_MODEL_PRICE: what the offline model's (estimated) tokens cost, USD per million in and out; unset: nothing. */
  offlinePrice?: { input: number; output: number };
  anthropic: {
    /** ANTHROPIC_API_KEY, required for MODEL_PROVIDER=anthropic. */
    apiKey: string | null;
    baseUrl?: string;
    model: string;
    maxTokens?: number;
    /** ANTHROPIC_THINKING: off, adaptive or a budget in tokens (at least 1024). */
    thinking: 'off' | 'adaptive' | number;
    computerTool?: string;
    betas?: string[];
  };
  openai: {
    baseUrl?: string;
    apiKey: string;
    /** OPENAI_MODEL, required for MODEL_PROVIDER=openai. */
    model: string | null;
    maxTokens?: number;
    contextTokens?: number;
    /** OPENAI_IMAGES=0: a text-only model, screenshots are left out. */
    images: boolean;
  };
  /** MODEL_PRICES_FILE's rows, ahead of the built-in price table; [] without one. */
  prices: Price[];
};

const MODEL_PROVIDERS = ['offline', 'anthropic', 'openai'];

export function modelsConfig(env: Env): ModelsConfig {
  const provider = env.MODEL_PROVIDER || 'offline';
  if (!MODEL_PROVIDERS.includes(provider.toLowerCase())) throw new Error(`Unknown MODEL_PROVIDER "${provider}": use offline, anthropic or openai`);
  return {
    offlineTerminalAt: fractions(env, 'OFFLINE_TERMINAL_AT'),
    offlinePrice: offlinePrice(env),
    anthropic: {
      apiKey: env.ANTHROPIC_API_KEY || null,
      baseUrl: httpUrl(env, 'ANTHROPIC_BASE_URL'),
      model: env.ANTHROPIC_MODEL || DEFAULT_ANTHROPIC_MODEL,
      maxTokens: positiveOrUnset(env, 'ANTHROPIC_MAX_TOKENS'),
      thinking: thinking(env),
      computerTool: env.ANTHROPIC_COMPUTER_TOOL || undefined,
      betas: env.ANTHROPIC_BETA ? env.ANTHROPIC_BETA.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    },
    openai: {
      baseUrl: httpUrl(env, 'OPENAI_BASE_URL'),
      apiKey: env.OPENAI_API_KEY || 'none',
      model: env.OPENAI_MODEL || null,
      maxTokens: positiveOrUnset(env, 'OPENAI_MAX_TOKENS'),
      contextTokens: positiveOrUnset(env, 'OPENAI_CONTEXT_TOKENS'),
      images: oneOrZero(env, 'OPENAI_IMAGES') ?? true,
    },
    prices: priceFile(env.MODEL_PRICES_FILE),
  };
}

/** ANTHROPIC_THINKING: off (unset), adaptive, or a budget in tokens, raised to the API's least (1024). */
function thinking(env: Env): 'off' | 'adaptive' | number {
  const value = env.ANTHROPIC_THINKING || 'off';
  if (value === 'off' || value === 'adaptive') return value;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw refuse('ANTHROPIC_THINKING', value, 'off, adaptive or a budget in tokens');
  return Math.max(1024, n);
}

const PRICE_RATES = ['input', 'output', 'cache_read', 'cache_write_5m', 'cache_write_1h'] as const;

/** MODEL_PRICES_FILE: a JSON list of {model, input, output, cache_read, cache_write_5m, cache_write_1h, from?}. */
function priceFile(file: string | undefined): Price[] {
  if (!file) return [];
  let rows: unknown;
  try {
    rows = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`MODEL_PRICES_FILE ${file} is unreadable: ${(err as Error).message}`);
  }
  const bad = Array.isArray(rows) ? rows.findIndex((row) => !isPrice(row)) : -2;
  if (bad !== -1) {
    throw new Error(`MODEL_PRICES_FILE ${file}: ${bad === -2 ? 'not a JSON list' : `row ${bad + 1} is not a price`}` +
      ` (each row: model, ${PRICE_RATES.join(', ')} in USD per million tokens, from as YYYY-MM-DD or none)`);
  }
  return rows as Price[];
}

function isPrice(row: unknown): boolean {
  if (typeof row !== 'object' || row === null) return false;
  const r = row as Record<string, unknown>;
  return typeof r.model === 'string' && r.model !== '' && PRICE_RATES.every((k) => typeof r[k] === 'number' && (r[k] as number) >= 0)
    && (r.from === undefined || r.from === null || (typeof r.from === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(r.from)));
}

/** OFFLINE_MODEL_PRICE "3,15": USD per million input and output tokens, so that spend, limits and billing can be tried offline. */
function offlinePrice(env: Env): { input: number; output: number } | undefined {
  const value = env.OFFLINE_MODEL_PRICE;
  if (!value) return undefined;
  const parts = value.split(',').map((p) => (p.trim() ? Number(p) : NaN));
  if (parts.length !== 2 || !parts.every((n) => Number.isFinite(n) && n >= 0)) {
    throw refuse('OFFLINE_MODEL_PRICE', value, 'two prices in USD per million tokens, input and output, like 3,15');
  }
  return { input: parts[0], output: parts[1] };
}
