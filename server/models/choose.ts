// Picks the model provider named by MODEL_PROVIDER (config.modelProvider) and gives it its settings
// (config.models, read and checked by config.ts):
//   offline (default)  OFFLINE_TERMINAL_AT
//   anthropic          ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, ANTHROPIC_MAX_TOKENS,
//                      ANTHROPIC_THINKING (off | adaptive | budget tokens), ANTHROPIC_COMPUTER_TOOL, ANTHROPIC_BETA
//   openai             OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, OPENAI_MAX_TOKENS, OPENAI_IMAGES (0 = text only),
//                      OPENAI_CONTEXT_TOKENS
// and the price table, MODEL_PRICES_FILE's rows first. A provider that cannot work (no API key) is
// refused at start with a message that says why.
import type { ModelsConfig } from '../config/index.ts';
import { createAnthropic } from './anthropic.ts';
import { createOffline } from './offline.ts';
import { createOpenAI } from './openai.ts';
import { PRICES } from './prices.ts';
import type { ModelProvider } from './types.ts';

export function chooseProvider(name: string, models: ModelsConfig): ModelProvider {
  const prices = [...models.prices, ...PRICES];
  switch ((name || 'offline').toLowerCase()) {
    case 'offline':
      return createOffline({ terminalAt: models.offlineTerminalAt, price: models.offlinePrice });
    case 'anthropic': {
      const { apiKey, ...settings } = models.anthropic;
      if (!apiKey) throw new Error('MODEL_PROVIDER=anthropic needs ANTHROPIC_API_KEY');
      return createAnthropic({ ...settings, apiKey, prices });
    }
    case 'openai': {
      const { model, ...settings } = models.openai;
      if (!model) throw new Error('MODEL_PROVIDER=openai needs OPENAI_MODEL (and OPENAI_BASE_URL unless Ollama runs on localhost:11434)');
      return createOpenAI({ ...settings, model, prices });
    }
    default:
      throw new Error(`Unknown MODEL_PROVIDER "${name}": use offline, anthropic or openai`);
  }
}
