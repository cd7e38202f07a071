// The model, recording and scheduler settings read by config.ts: defaults as the README says, values handed
// down as given, and a bad value refused with an error that names the variable.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../server/config/index.ts';
import { chooseProvider } from '../../server/models/choose.ts';
import { priceFor, PRICES } from '../../server/models/prices.ts';

/** The message loadConfig throws for `env`, or null when it takes it. */
const refusal = (env: Record<string, string>): string | null => {
  try {
    loadConfig(env);
    return null;
  } catch (err) {
    assert.instance(err, Error);
    return (err as Error).message;
  }
};

const defaults = suite('config: defaults');

defaults('nothing set: the offline model, 600 s recordings without transcripts, replays kept 30 days, a 15 s scheduler tick', () => {
  const config = loadConfig({});
  assert.is(config.modelProvider, 'offline');
  assert.equal(config.recording, { maxSeconds: 600, retentionDays: 30, transcribe: null });
  assert.is(config.schedulerTickMs, 15_000);
  assert.equal(config.models.prices, []);
  assert.is(config.models.offlineTerminalAt, undefined);
  assert.equal(config.models.anthropic, {
    apiKey: null, baseUrl: undefined, model: 'claude-sonnet-4-5', maxTokens: undefined, thinking: 'off', computerTool: undefined, betas: undefined,
  });
  assert.equal(config.models.openai, { baseUrl: undefined, apiKey: 'none', model: null, maxTokens: undefined, contextTokens: undefined, images: true });
});

defaults('values are handed down as given', () => {
  const config = loadConfig({
    MODEL_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'sk-1', ANTHROPIC_THINKING: '500', ANTHROPIC_BETA: 'a, b,', ANTHROPIC_MAX_TOKENS: '2048',
    OPENAI_IMAGES: '0', OPENAI_CONTEXT_TOKENS: '8192', OFFLINE_TERMINAL_AT: '0.5,0.1',
    RECORDING_MAX_SECONDS: '30', RECORDING_RETENTION_DAYS: '7', TRANSCRIBE_BASE_URL: 'http://127.0.0.1:9/v1', TRANSCRIBE_API_KEY: 'tk',
    SCHEDULER_TICK_MS: '250',
  });
  assert.equal(config.models.anthropic.thinking, 1024, 'a budget below the least the API takes is raised to it');
  assert.equal(config.models.anthropic.betas, ['a', 'b']);
  assert.is(config.models.anthropic.maxTokens, 2048);
  assert.is(config.models.openai.images, false);
  assert.is(config.models.openai.contextTokens, 8192);
  assert.equal(config.models.offlineTerminalAt, [0.5, 0.1]);
  assert.equal(config.recording, { maxSeconds: 30, retentionDays: 7, transcribe: { baseUrl: 'http://127.0.0.1:9/v1', model: undefined, apiKey: 'tk' } });
  assert.is(config.schedulerTickMs, 250);
  assert.is(chooseProvider(config.modelProvider, config.models).name, 'anthropic');
});

const offline = suite('config: OFFLINE_MODEL_PRICE');

offline('gives the offline model a price, so its calls cost what their estimated tokens would (spend and limits can be tried)', async () => {
  const free = chooseProvider('offline', loadConfig({}).models);
  const priced = chooseProvider('offline', loadConfig({ OFFLINE_MODEL_PRICE: '3,15' }).models);
  const request = { system: 'Be brief.', messages: [{ role: 'user' as const, content: 'take a screenshot' }], tools: [], computer: null };
  const [a, b] = [await free.complete(request as never), await priced.complete(request as never)];
  assert.is(a.cost, 0);
  const { input_tokens, output_tokens } = b.response.usage;
  assert.ok(input_tokens > 0 && output_tokens > 0);
  assert.is(b.cost, (input_tokens * 3 + output_tokens * 15) / 1e6);
  const must = 'two prices in USD per million tokens, input and output, like 3,15';
  assert.is(refusal({ OFFLINE_MODEL_PRICE: '3' }), `OFFLINE_MODEL_PRICE must be ${must}, not "3"`);
  assert.match(refusal({ OFFLINE_MODEL_PRICE: '3,-1' }) ?? '', /^OFFLINE_MODEL_PRICE must be two prices/);
});

offline.run();

const bad = suite('config: a bad value stops the start and names the variable');

bad('numbers, switches, URLs, fractions and the provider name', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ SCHEDULER_TICK_MS: 'soon' }, /^SCHEDULER_TICK_MS must be a positive whole number, not "soon"$/],
    [{ RECORDING_MAX_SECONDS: '0' }, /^RECORDING_MAX_SECONDS must be a positive whole number/],
    [{ ANTHROPIC_MAX_TOKENS: '1.5' }, /^ANTHROPIC_MAX_TOKENS /],
    [{ OPENAI_MAX_TOKENS: '-1' }, /^OPENAI_MAX_TOKENS /],
    [{ OPENAI_CONTEXT_TOKENS: '32k' }, /^OPENAI_CONTEXT_TOKENS /],
    [{ ANTHROPIC_THINKING: 'lots' }, /^ANTHROPIC_THINKING must be off, adaptive or a budget in tokens, not "lots"$/],
    [{ OPENAI_IMAGES: 'yes' }, /^OPENAI_IMAGES must be 0 or 1, not "yes"$/],
    [{ OFFLINE_TERMINAL_AT: '0.25' }, /^OFFLINE_TERMINAL_AT must be two fractions/],
    [{ OFFLINE_TERMINAL_AT: '0.25,2' }, /^OFFLINE_TERMINAL_AT must be two fractions/],
    [{ TRANSCRIBE_BASE_URL: 'whisper.local' }, /^TRANSCRIBE_BASE_URL must be an http\(s\) URL, not "whisper.local"$/],
    [{ OPENAI_BASE_URL: 'ftp://x' }, /^OPENAI_BASE_URL must be an http\(s\) URL/],
    [{ ANTHROPIC_BASE_URL: 'api.anthropic.com' }, /^ANTHROPIC_BASE_URL must be an http\(s\) URL/],
    [{ MODEL_PROVIDER: 'gpt' }, /^Unknown MODEL_PROVIDER "gpt": use offline, anthropic or openai$/],
    // Settings that fell back to their default on a bad value (issue 41): a typo no longer runs on silently.
    [{ PORT: 'abc' }, /^PORT must be a whole number ≥ 0, not "abc"$/],
    [{ PORT: '70000' }, /^PORT must be a port from 0 to 65535, not "70000"$/],
    [{ SMTP_PORT: '-1' }, /^SMTP_PORT must be a whole number ≥ 0, not "-1"$/],
    [{ AGENT_STORAGE_MB: 'lots' }, /^AGENT_STORAGE_MB must be a whole number ≥ 0, not "lots"$/],
    [{ AGENT_HOME_MB: '1.5' }, /^AGENT_HOME_MB must be a whole number ≥ 0, not "1.5"$/],
    [{ AGENT_TMP_MB: '0' }, /^AGENT_TMP_MB must be a positive whole number, not "0"$/],
    [{ DESKTOP_MAX_PIXELS: 'huge' }, /^DESKTOP_MAX_PIXELS must be a positive whole number/],
    [{ MAIL_MAX_BYTES: '25MB' }, /^MAIL_MAX_BYTES must be a whole number of at least 1, not "25MB"$/],
    [{ BILLING_TEST_CREDITS_CENTS: '5 dollars' }, /^BILLING_TEST_CREDITS_CENTS must be a whole number ≥ 0/],
    [{ SIGNUP: 'close' }, /^SIGNUP must be open or closed, not "close"$/],
    [{ LOG_FORMAT: 'yaml' }, /^LOG_FORMAT must be text or json, not "yaml"$/],
    [{ LOG_REQUESTS: 'no' }, /^LOG_REQUESTS must be 0 or 1, not "no"$/],
    [{ BILLING_PROVIDER: 'paypal' }, /^BILLING_PROVIDER must be local or stripe, not "paypal"$/],
  ];
  for (const [env, message] of cases) assert.match(refusal(env) ?? 'taken', message, JSON.stringify(env));
  assert.is(refusal({ MODEL_PROVIDER: 'OpenAI', OPENAI_IMAGES: '1', OFFLINE_TERMINAL_AT: '0,1' }), null, 'good values pass');
});

const prices = suite('config: MODEL_PRICES_FILE');
const dir = mkdtempSync(join(tmpdir(), 'aw-config-'));
prices.after(() => rmSync(dir, { recursive: true, force: true }));

prices('its rows are read once and go ahead of the built-in table; an unreadable or malformed file is refused', () => {
  const file = join(dir, 'prices.json');
  const row = { model: 'claude-sonnet-4-5', input: 1, output: 2, cache_read: 0.1, cache_write_5m: 1.25, cache_write_1h: 2, from: '2020-01-01' };
  writeFileSync(file, JSON.stringify([row]));
  const config = loadConfig({ MODEL_PRICES_FILE: file });
  assert.equal(config.models.prices, [row]);
  assert.is(priceFor('claude-sonnet-4-5-20250929', new Date(), [...config.models.prices, ...PRICES])!.input, 1);
  assert.is(priceFor('claude-sonnet-4-5-20250929')!.input, 3, 'the built-in table alone');

  assert.match(refusal({ MODEL_PRICES_FILE: join(dir, 'missing.json') }) ?? '', /^MODEL_PRICES_FILE .*missing\.json is unreadable: /);
  writeFileSync(file, '{"model": "x"}');
  assert.match(refusal({ MODEL_PRICES_FILE: file }) ?? '', /^MODEL_PRICES_FILE .*: not a JSON list/);
  writeFileSync(file, JSON.stringify([row, { model: 'y', input: '1' }]));
  assert.match(refusal({ MODEL_PRICES_FILE: file }) ?? '', /^MODEL_PRICES_FILE .*: row 2 is not a price/);
});

defaults.run();
bad.run();
prices.run();

// ---

const fleet = suite('config: several instances on one PostgreSQL');
const PG = 'postgres://db.internal/aw';
const SECRET = 'a-secret-of-at-least-thirty-two-characters';

fleet('without DATABASE_URL there is no fleet, and INTERNAL_SECRET is not needed', () => {
  assert.is(loadConfig({}).fleet, null);
});

fleet('an INTERNAL_SECRET under 32 characters stops the start with a line naming it; none at all is left to the database', () => {
  assert.match(refusal({ DATABASE_URL: PG, INTERNAL_SECRET: 'short' }) ?? '', /^INTERNAL_SECRET must be at least 32 characters/);
  // `DATABASE_URL=… npm start` alone still starts (a fixed interface): start.ts fills in the deployment's own.
  assert.is(loadConfig({ DATABASE_URL: PG }).fleet?.internalSecret, '');
});

fleet('defaults: a desktop host announcing no INTERNAL_URL (the server uses http://127.0.0.1:<port>), 30 s stale leases', () => {
  assert.equal(loadConfig({ DATABASE_URL: PG, INTERNAL_SECRET: SECRET }).fleet, {
    internalUrl: null, internalSecret: SECRET, desktopHost: true, leaseStaleSeconds: 30,
  });
});

fleet('INTERNAL_URL, DESKTOP_HOST=0 and DESKTOP_LEASE_STALE_SECONDS are taken as given; bad values are refused by name', () => {
  const env = { DATABASE_URL: PG, INTERNAL_SECRET: SECRET };
  const config = loadConfig({ ...env, INTERNAL_URL: 'http://10.0.0.7:8080/', DESKTOP_HOST: '0', DESKTOP_LEASE_STALE_SECONDS: '12' });
  assert.equal(config.fleet, { internalUrl: 'http://10.0.0.7:8080', internalSecret: SECRET, desktopHost: false, leaseStaleSeconds: 12 });
  assert.match(refusal({ ...env, INTERNAL_URL: 'ws://10.0.0.7' }) ?? '', /^INTERNAL_URL must be an http\(s\) URL/);
  assert.match(refusal({ ...env, DESKTOP_HOST: 'no' }) ?? '', /^DESKTOP_HOST must be 0 or 1/);
  assert.match(refusal({ ...env, DESKTOP_LEASE_STALE_SECONDS: '0' }) ?? '', /^DESKTOP_LEASE_STALE_SECONDS must be a positive/);
});

fleet.run();
