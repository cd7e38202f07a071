// Token estimates for the offline model (about 4 characters per token; images by their PNG
// size as Anthropic counts them, width × height / 750) and image eliding for stored traces:
// a trace keeps the shape of every image but not its base64 data. Also the most a call may cost, which
// the runner reserves against the owner's spend limit before it.
import { costOf, type Price } from './prices.ts';
import type { ModelRequest } from './types.ts';

/** The most a call may cost (USD): the request's tokens as estimated here and an answer of maxTokens. */
export function estimateCallCost(model: string, request: ModelRequest, maxTokens: number, prices?: readonly Price[]): number {
  const prompt = estimateTextTokens(request.system) + estimateTokens(request.messages) + estimateTokens(request.tools);
  const usage = { input_tokens: prompt, output_tokens: maxTokens, cache_read_tokens: 0, cache_write_tokens: 0 };
  return costOf(model, usage, new Date(), prices);
}

export const estimateTextTokens = (text: string): number => Math.ceil(text.length / 4);

/** Width and height from a base64 PNG's IHDR, or null. */
export function pngSize(base64: string): { width: number; height: number } | null {
  const head = Buffer.from(base64.slice(0, 44), 'base64');
  if (head.length < 24 || head.readUInt32BE(0) !== 0x89504e47) return null;
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

export function estimateImageTokens(base64: string): number {
  const size = pngSize(base64);
  if (!size) return 1000;
  // Images with a long edge over 1568 px are scaled down first (Anthropic vision docs).
  const scale = Math.min(1, 1568 / Math.max(size.width, size.height));
  return Math.ceil((size.width * scale * size.height * scale) / 750);
}

/** Tokens of any JSON-ish value: text by length, images by size. */
export function estimateTokens(value: unknown): number {
  let tokens = 0;
  const walk = (v: unknown): void => {
    if (typeof v === 'string') tokens += estimateTextTokens(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, any>;
      if (o.type === 'image' && o.source?.data) return void (tokens += estimateImageTokens(o.source.data));
      for (const [k, x] of Object.entries(o)) {
        if (k === 'signature' || k === 'cache_control') continue;
        walk(x);
      }
    }
  };
  walk(value);
  return tokens;
}

/** A copy with base64 image data replaced by a short marker (Anthropic and OpenAI shapes). */
export function elideImages<T>(value: T): T {
  const walk = (v: any): any => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    if (v.type === 'image' && v.source?.type === 'base64' && typeof v.source.data === 'string') {
      return { ...v, source: { ...v.source, data: `<${v.source.data.length} base64 characters omitted>` } };
    }
    if (v.type === 'image_url' && typeof v.image_url?.url === 'string' && v.image_url.url.startsWith('data:')) {
      const url: string = v.image_url.url;
      return { ...v, image_url: { ...v.image_url, url: `${url.slice(0, url.indexOf(',') + 1)}<${url.length} characters omitted>` } };
    }
    const out: Record<string, any> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x);
    return out;
  };
  return walk(value);
}
