import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { batched } from '../../server/db/batch.ts';

const test = suite('batched reads');

type Deferred<T> = { promise: Promise<T>; resolve: (value: T) => void };
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  return { promise: new Promise<T>((r) => (resolve = r)), resolve };
}

/** A loader that records each batch of keys and answers `key:n` (n = which load answered). */
function recording(hold?: () => Promise<void>) {
  const loads: string[][] = [];
  const load = batched<string, string>(async (keys) => {
    loads.push(keys);
    const n = loads.length;
    await hold?.();
    return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, `${k}:${n}`]));
  }, 3);
  return { load, loads };
}

test('reads asked in the same turn go in one load of distinct keys; each gets its own answer', async () => {
  const { load, loads } = recording();
  const answers = await Promise.all([load('a'), load('b'), load('a'), load('missing')]);
  assert.equal(loads, [['a', 'b', 'missing']]);
  assert.equal(answers, ['a:1', 'b:1', 'a:1', undefined]);
});

test('a read asked while a load is out waits for the next load, never taking the earlier answer', async () => {
  let gate = deferred<void>();
  const { load, loads } = recording(() => gate.promise);
  const first = load('a');
  while (loads.length === 0) await new Promise((r) => setImmediate(r));
  const second = load('a'); // the first load is already out: its answer may predate this read
  const third = load('b');
  const held = gate;
  gate = deferred<void>();
  held.resolve();
  assert.is(await first, 'a:1');
  while (loads.length < 2) await new Promise((r) => setImmediate(r));
  gate.resolve();
  assert.equal(await Promise.all([second, third]), ['a:2', 'b:2']);
  assert.equal(loads, [['a'], ['a', 'b']]);
});

test('a failed load rejects its own reads only; the next batch is answered', async () => {
  let fail = true;
  const load = batched<string, string>(async (keys) => {
    if (fail) {
      fail = false;
      throw new Error('database down');
    }
    return new Map(keys.map((k) => [k, k.toUpperCase()]));
  });
  const failed = await Promise.allSettled([load('a'), load('b')]);
  assert.equal(failed.map((r) => r.status), ['rejected', 'rejected']);
  assert.is((failed[0] as PromiseRejectedResult).reason.message, 'database down');
  assert.is(await load('c'), 'C');
});

test('more distinct keys than the batch size go in several loads', async () => {
  const { load, loads } = recording();
  const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((k) => load(k)));
  assert.equal(loads, [['a', 'b', 'c'], ['d', 'e']]);
  assert.equal(answers, ['a:1', 'b:1', 'c:1', 'd:2', 'e:2']);
});

test.run();
