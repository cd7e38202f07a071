import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { costOf, priceFor } from '../../server/models/prices.ts';
import { elideImages, estimateImageTokens, estimateTokens, pngSize } from '../../server/models/estimate.ts';

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≈ ${b}`);
const usage = (input: number, output: number, read = 0, write = 0, write1h = 0) => ({
  input_tokens: input, output_tokens: output, cache_read_tokens: read, cache_write_tokens: write, cache_write_1h_tokens: write1h,
});

// ---

const prices = suite('prices: cost of a call');

prices('input, output, cache reads and both cache write rates each have their own price', () => {
  // Sonnet 4.5: 3 in, 15 out, 0.30 read, 3.75 5m write, 6 1h write per million
  close(costOf('claude-sonnet-4-5-20250929', usage(1_000_000, 0)), 3);
  close(costOf('claude-sonnet-4-5', usage(0, 1_000_000)), 15);
  close(costOf('claude-sonnet-4-5', usage(0, 0, 1_000_000)), 0.3);
  close(costOf('claude-sonnet-4-5', usage(0, 0, 0, 1_000_000)), 3.75);
  close(costOf('claude-sonnet-4-5', usage(0, 0, 0, 1_000_000, 1_000_000)), 6);
  close(costOf('claude-sonnet-4-5', usage(1000, 500, 20_000, 100)), (1000 * 3 + 500 * 15 + 20_000 * 0.3 + 100 * 3.75) / 1e6);
});

prices('the longest matching model prefix wins (Opus 4.1 is not Opus 4.5)', () => {
  assert.is(priceFor('claude-opus-4-1-20250805')!.input, 15);
  assert.is(priceFor('claude-opus-4-5-20251101')!.input, 5);
  assert.is(priceFor('claude-opus-4-20250514')!.input, 15);
  assert.is(priceFor('claude-opus-5-5')!.cache_read, 0.2);
  assert.is(priceFor('claude-haiku-4-5')!.output, 5);
});

prices('dated rows: the Sonnet 5.5 cache-read cut applies from its date', () => {
  assert.is(priceFor('claude-sonnet-5-5', new Date('2026-10-01T00:00:00Z'))!.cache_read, 0.2);
  assert.is(priceFor('claude-sonnet-5-5', new Date('2026-10-08T00:00:00Z'))!.cache_read, 0.1);
});

prices('long prompts bill at the multiplier where a model has one', () => {
  close(costOf('claude-haiku-5-5', usage(50_000, 0)), 50_000 * 0.1 / 1e6);
  close(costOf('claude-haiku-5-5', usage(150_000, 1000)), (150_000 * 0.1 + 1000 * 0.5) * 5 / 1e6);
});

prices('unknown (local) models cost nothing', () => {
  assert.is(costOf('qwen2.5-vl:7b', usage(1e6, 1e6)), 0);
  assert.is(priceFor('llama3'), null);
});

// ---

const estimate = suite('estimates: tokens and images');

estimate('text is about 4 characters per token; images count by their PNG size', () => {
  assert.is(estimateTokens('abcdefgh'), 2);
  // a 1280x800 PNG header: 1280*800/750 = 1366 tokens
  const header = Buffer.alloc(24);
  header.writeUInt32BE(0x89504e47, 0);
  header.writeUInt32BE(1280, 16);
  header.writeUInt32BE(800, 20);
  const b64 = header.toString('base64');
  assert.equal(pngSize(b64), { width: 1280, height: 800 });
  assert.is(estimateImageTokens(b64), 1366);
  assert.is(estimateTokens([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } }, 'abcd']), 1367);
});

estimate('stored traces keep image shapes without their data', () => {
  const body = {
    messages: [{
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(5000) } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,' + 'B'.repeat(100) } },
      ],
    }],
  };
  const out = elideImages(body) as any;
  assert.is(out.messages[0].content[0].source.data, '<5000 base64 characters omitted>');
  assert.is(out.messages[0].content[1].image_url.url, 'data:image/png;base64,<122 characters omitted>');
  assert.is((body.messages[0].content[0] as any).source.data.length, 5000, 'the original is untouched');
});

prices.run();
estimate.run();
