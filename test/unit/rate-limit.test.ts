// The one rate limiter (server/ops/rate-limit.ts) that sign-in and the mail intake share: a sliding window.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimiter } from '../../server/ops/rate-limit.ts';

test('at the limit an attempt waits until the oldest one leaves the window, not until a fixed window turns', () => {
  let now = 0;
  const limiter = new RateLimiter(2, 60_000, () => now);
  assert.is(limiter.take('ip:a'), 0);
  now = 30_000;
  assert.is(limiter.take('ip:a'), 0);
  assert.is(limiter.take('ip:a'), 30, 'the first attempt leaves at 60 s');
  assert.is(limiter.take('ip:b'), 0, 'keys are apart');
  now = 60_001;
  assert.is(limiter.take('ip:a'), 0);
  assert.is(limiter.retryAfter('ip:a'), 30, 'the second attempt (at 30 s) and this one fill it again');
});

test('a refunded attempt no longer counts; reset forgets the key', () => {
  const limiter = new RateLimiter(1, 60_000, () => 0);
  limiter.take('pair');
  limiter.refund('pair');
  assert.is(limiter.count('pair'), 0);
  limiter.hit('pair');
  limiter.reset('pair');
  assert.is(limiter.take('pair'), 0);
});

test('a limit given per call (the mail intake reads its settings each time) counts the same window', () => {
  const limiter = new RateLimiter(Infinity, 60_000, () => 0);
  assert.is(limiter.take('sender', 1), 0);
  assert.ok(limiter.take('sender', 1) > 0);
  assert.is(limiter.take('sender', 2), 0, 'a higher limit lets one more in');
});

test.run();
