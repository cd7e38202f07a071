// Picks the model provider from MODEL_PROVIDER (config.modelProvider) and its environment:
//   offline (default)  no settings
//   anthropic          ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, ANTHROPIC_MAX_TOKENS,
//                      ANTHROPIC_THINKING (off | adaptive | budget tokens), ANTHROPIC_COMPUTER_TOOL, ANTHROPIC_BETA
//   openai             OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, OPENAI_MAX_TOKENS, OPENAI_IMAGES (0 = text only),
//                      OPENAI_CONTEXT_TOKENS
// A provider that cannot work (no API key) is refused at start with a message that says why.
import { createAnthropic } from './anthropic.ts';
import { createOffline } from './offline.ts';
import { createOpenAI } from './openai.ts';
import type { ModelProvider } from './types.ts';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-5';

export function chooseProvider(name: string, env: NodeJS.ProcessEnv = process.env): ModelProvider {
  switch ((name || 'offline').toLowerCase()) {
    case 'offline':
      return createOffline({ terminalAt: fractions(env.OFFLINE_TERMINAL_AT) });
    case 'anthropic': {
      if (!env.ANTHROPIC_API_KEY) throw new Error('MODEL_PROVIDER=anthropic needs ANTHROPIC_API_KEY');
      const thinking = env.ANTHROPIC_THINKING || 'off';
      return createAnthropic({
        apiKey: env.ANTHROPIC_API_KEY,
        baseUrl: env.ANTHROPIC_BASE_URL,
        model: env.ANTHROPIC_MODEL || DEFAULT_ANTHROPIC_MODEL,
        maxTokens: positive(env.ANTHROPIC_MAX_TOKENS),
        thinking: thinking === 'off' || thinking === 'adaptive' ? thinking : Math.max(1024, positive(thinking) ?? 2048),
        computerTool: env.ANTHROPIC_COMPUTER_TOOL || undefined,
        betas: env.ANTHROPIC_BETA ? env.ANTHROPIC_BETA.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
      });
    }
    case 'openai':
      if (!env.OPENAI_MODEL) throw new Error('MODEL_PROVIDER=openai needs OPENAI_MODEL (and OPENAI_BASE_URL unless Ollama runs on localhost:11434)');
      return createOpenAI({
        baseUrl: env.OPENAI_BASE_URL,
        apiKey: env.OPENAI_API_KEY || 'none',
        model: env.OPENAI_MODEL,
        maxTokens: positive(env.OPENAI_MAX_TOKENS),
        contextTokens: positive(env.OPENAI_CONTEXT_TOKENS),
        images: env.OPENAI_IMAGES !== '0',
      });
    default:
      throw new Error(`Unknown MODEL_PROVIDER "${name}": use offline, anthropic or openai`);
  }
}

function positive(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** "0.25,0.2" → [0.25, 0.2] */
function fractions(value: string | undefined): [number, number] | undefined {
  const parts = (value ?? '').split(',').map(Number);
  return parts.length === 2 && parts.every((n) => n >= 0 && n <= 1) ? [parts[0], parts[1]] : undefined;
}
