import { reset } from '../setup/dom.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import type { Root } from 'react-dom/client';
import { BROWSER_ENVIRONMENT, configureEnvironment } from '../../src/lib/environment.ts';
import { clearResourceCache, deepEqual, mutate, useResource } from '../../src/lib/use-resource.ts';
import { fakeResourceEnvironment } from './helpers/fake-clock.ts';
import type { Resource, ResourceOptions } from '../../src/lib/use-resource.ts';
import { DEFAULTS as HTTP_DEFAULTS, HttpError, configureHttp } from '../../src/lib/http.ts';

// --- helpers

let keyCount = 0;
const createKey = () => `/test/${++keyCount}`;

type Deferred<T> = { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void };
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A fetcher answering 'v1', 'v2', … and recording the keys it was called with. */
function counter() {
  const calls: string[] = [];
  const fetcher = async (key: string) => (calls.push(key), `v${calls.length}`);
  return { fetcher, calls };
}

/** A fetcher whose answers the test settles by hand, one Deferred per call. */
function manual() {
  const calls: Deferred<string>[] = [];
  const fetcher = (_key: string) => {
    const d = deferred<string>();
    calls.push(d);
    return d.promise;
  };
  return { fetcher, calls };
}

const hooks: Record<string, Resource<string>> = {};

function Probe({ id = 'a', k, options }: { id?: string; k: string | null; options?: ResourceOptions<string> }) {
  const resource = useResource<string>(k, options);
  hooks[id] = resource;
  const { data, error, isLoading, isValidating } = resource;
  const err = error ? `${error.detail}/${error.status_code}` : '-';
  return <p id={id}>{`data=${data ?? '-'} error=${err} loading=${isLoading} validating=${isValidating}`}</p>;
}

let root: Root | null = null;

async function render(element: React.ReactElement): Promise<void> {
  if (!root) {
    const el = document.createElement('div');
    document.body.append(el);
    root = createRoot(el);
  }
  await act(async () => root!.render(element));
}

async function unmount(): Promise<void> {
  if (root) await act(async () => root!.unmount());
  root = null;
}

const text = (id = 'a') => document.getElementById(id)?.textContent ?? '';
const flush = () => act(async () => {});

// Time, visibility and focus come from the injected environment: the tests move them by hand.
let fake = fakeResourceEnvironment();
const tick = (ms: number) => fake.tick(ms);
const setVisibility = (state: 'visible' | 'hidden') => fake.setVisible(state === 'visible');

async function cleanup(): Promise<void> {
  await unmount();
  clearResourceCache();
  reset();
  fake = fakeResourceEnvironment();
  configureEnvironment(fake.env);
  for (const id of Object.keys(hooks)) delete hooks[id];
}

function setupSuite(name: string) {
  const s = suite(name);
  s.before.each(cleanup);
  s.after.each(cleanup);
  s.after(() => configureEnvironment(BROWSER_ENVIRONMENT));
  return s;
}

// ---

const fetching = setupSuite('useResource: fetching and cache');

fetching('reports loading on the first render, then renders the fetched data', async () => {
  const { fetcher, calls } = manual();
  const key = createKey();
  await render(<Probe k={key} options={{ fetcher }} />);
  assert.is(text(), 'data=- error=- loading=true validating=true');
  await act(async () => calls[0].resolve('hello'));
  assert.is(text(), 'data=hello error=- loading=false validating=false');
  assert.is(calls.length, 1);
});

fetching('uses request() on the key by default', async () => {
  const urls: string[] = [];
  configureHttp({
    ...HTTP_DEFAULTS,
    storage: null,
    fetch: async (input) => (urls.push(String(input)), new Response('"from server"', { status: 200 })),
  });
  try {
    await render(<Probe k="/agents/1" />);
    await flush();
    assert.equal(urls, ['/api/agents/1']);
    assert.match(text(), 'data=from server');
  } finally {
    configureHttp(HTTP_DEFAULTS);
  }
});

fetching('dedupes two hooks mounting on the same key', async () => {
  const { fetcher, calls } = counter();
  const key = createKey();
  await render(<><Probe id="a" k={key} options={{ fetcher }} /><Probe id="b" k={key} options={{ fetcher }} /></>);
  await flush();
  assert.equal(calls, [key]);
  assert.match(text('a'), 'data=v1');
  assert.match(text('b'), 'data=v1');
});

fetching('does not refetch a value that is still fresh', async () => {
  const { fetcher, calls } = counter();
  const key = createKey();
  await render(<Probe k={key} options={{ fetcher }} />);
  await flush();
  await unmount();
  await render(<Probe k={key} options={{ fetcher }} />);
  await flush();
  assert.is(calls.length, 1);
  assert.is(text(), 'data=v1 error=- loading=false validating=false');
});

fetching('shows stale cached data at once while it revalidates', async () => {
  const { fetcher, calls } = manual();
  const key = createKey();
  await render(<Probe k={key} options={{ fetcher, freshFor: 0 }} />);
  await act(async () => calls[0].resolve('old'));
  await unmount();
  await render(<Probe k={key} options={{ fetcher, freshFor: 0 }} />);
  assert.is(text(), 'data=old error=- loading=false validating=true');
  await act(async () => calls[1].resolve('new'));
  assert.is(text(), 'data=new error=- loading=false validating=false');
});

fetching('discards an older response once a newer request has started', async () => {
  const { fetcher, calls } = manual();
  const key = createKey();
  await render(<Probe k={key} options={{ fetcher }} />);
  await act(async () => void hooks.a.mutate());
  assert.is(calls.length, 2);
  await act(async () => calls[1].resolve('newer'));
  await act(async () => calls[0].resolve('older'));
  assert.is(text(), 'data=newer error=- loading=false validating=false');
});

fetching('normalizes errors and keeps the last good data', async () => {
  let fail = false;
  const fetcher = async () => {
    if (!fail) return 'good';
    throw new HttpError(new Response(null, { status: 404 }), 'GET', '/api/agents/7', { detail: 'Agent not found' });
  };
  const key = createKey();
  await render(<Probe k={key} options={{ fetcher }} />);
  await flush();
  fail = true;
  await act(() => hooks.a.mutate());
  assert.is(text(), 'data=good error=Agent not found/404 loading=false validating=false');
});

fetching('turns a fetcher that throws synchronously into an error state', async () => {
  const fetcher = (): Promise<string> => {
    throw new Error('no such endpoint');
  };
  await render(<Probe k={createKey()} options={{ fetcher }} />);
  await flush();
  assert.is(text(), 'data=- error=no such endpoint/500 loading=false validating=false');
});

fetching('retry: one failed fetch is tried again before the error shows', async () => {
  let calls = 0;
  const flaky = async () => {
    if (++calls === 1) throw new Error('blip');
    return 'second try';
  };
  await render(<Probe k={createKey()} options={{ fetcher: flaky, retry: 1, retryDelay: 5 }} />);
  await flush();
  assert.match(text(), 'error=- loading=true');
  await tick(5);
  assert.is(calls, 2);
  assert.is(text(), 'data=second try error=- loading=false validating=false');
  await unmount();

  let failures = 0;
  const broken = async (): Promise<string> => {
    failures++;
    throw new Error('down');
  };
  await render(<Probe k={createKey()} options={{ fetcher: broken, retry: 1, retryDelay: 5 }} />);
  await tick(5);
  assert.is(failures, 2, 'one try and one retry, no more');
  assert.is(text(), 'data=- error=down/500 loading=false validating=false');
});

fetching('stays idle with a null key and starts once a key is given', async () => {
  const { fetcher, calls } = counter();
  await render(<Probe k={null} options={{ fetcher }} />);
  await flush();
  assert.is(calls.length, 0);
  assert.is(text(), 'data=- error=- loading=false validating=false');
  await render(<Probe k={createKey()} options={{ fetcher }} />);
  await flush();
  assert.is(calls.length, 1);
  assert.match(text(), 'data=v1');
});

fetching('clearResourceCache forgets cached values', async () => {
  const { fetcher, calls } = counter();
  const key = createKey();
  await render(<Probe k={key} options={{ fetcher }} />);
  await flush();
  await unmount();
  clearResourceCache();
  await render(<Probe k={key} options={{ fetcher }} />);
  await flush();
  assert.is(calls.length, 2);
  assert.match(text(), 'data=v2');
});

fetching.run();

// ---

const mutation = setupSuite('useResource: mutate');

mutation('mutate(data) updates every hook on the key without a request', async () => {
  const { fetcher, calls } = counter();
  const key = createKey();
  await render(<><Probe id="a" k={key} options={{ fetcher }} /><Probe id="b" k={key} options={{ fetcher }} /></>);
  await flush();
  await act(() => hooks.a.mutate('local'));
  assert.match(text('a'), 'data=local');
  assert.match(text('b'), 'data=local');
  await act(() => hooks.b.mutate((current) => `${current}+1`));
  assert.match(text('a'), 'data=local+1');
  assert.is(calls.length, 1);
});

mutation('mutate(data) wins over a response already in flight', async () => {
  const { fetcher, calls } = manual();
  await render(<Probe k={createKey()} options={{ fetcher }} />);
  await act(() => hooks.a.mutate('optimistic'));
  await act(async () => calls[0].resolve('stale'));
  assert.match(text(), 'data=optimistic');
});

mutation('mutate() refetches', async () => {
  const { fetcher, calls } = counter();
  await render(<Probe k={createKey()} options={{ fetcher }} />);
  await flush();
  await act(() => hooks.a.mutate());
  assert.is(calls.length, 2);
  assert.match(text(), 'data=v2');
});

mutation('the global mutate(key) refetches mounted hooks', async () => {
  const { fetcher, calls } = counter();
  const key = createKey();
  await render(<Probe k={key} options={{ fetcher }} />);
  await flush();
  await act(() => mutate(key));
  assert.is(calls.length, 2);
  assert.match(text(), 'data=v2');
});

mutation('the global mutate(key) marks an unmounted key stale for its next mount', async () => {
  const { fetcher, calls } = counter();
  const key = createKey();
  await render(<Probe k={key} options={{ fetcher, freshFor: 60_000 }} />);
  await flush();
  await unmount();
  await mutate(key);
  assert.is(calls.length, 1);
  await render(<Probe k={key} options={{ fetcher, freshFor: 60_000 }} />);
  await flush();
  assert.is(calls.length, 2);
});

mutation.run();

// ---

const polling = setupSuite('useResource: polling and focus');

polling('polls at the refresh interval', async () => {
  const { fetcher, calls } = counter();
  await render(<Probe k={createKey()} options={{ fetcher, refreshInterval: 20 }} />);
  await flush();
  await tick(19);
  assert.is(calls.length, 1, 'not before the interval');
  await tick(1);
  assert.is(calls.length, 2);
  await tick(60);
  assert.is(calls.length, 5);
  assert.match(text(), 'data=v5');
});

polling('does not poll without a refresh interval', async () => {
  const { fetcher, calls } = counter();
  await render(<Probe k={createKey()} options={{ fetcher }} />);
  await tick(60_000);
  assert.is(calls.length, 1);
  assert.is(fake.clock.pending, 0);
});

polling('schedules the next tick only after the current request settles', async () => {
  const { fetcher, calls } = manual();
  await render(<Probe k={createKey()} options={{ fetcher, refreshInterval: 10 }} />);
  await tick(10);
  assert.is(calls.length, 1, 'the tick joins the request in flight');
  await tick(80);
  assert.is(calls.length, 1, 'no tick is scheduled while it is in flight');
  await act(async () => calls[0].resolve('done'));
  await tick(10);
  assert.is(calls.length, 2);
});

polling('skips ticks while the tab is hidden and revalidates when it is visible again', async () => {
  const { fetcher, calls } = counter();
  await render(<Probe k={createKey()} options={{ fetcher, refreshInterval: 20, revalidateOnFocus: false }} />);
  await flush();
  await setVisibility('hidden');
  const hiddenAt = calls.length;
  await tick(100);
  assert.is(calls.length, hiddenAt);
  await setVisibility('visible');
  assert.is(calls.length, hiddenAt + 1, 'revalidates on becoming visible');
  await tick(60);
  assert.is(calls.length, hiddenAt + 4, 'polling resumes');
});

polling('revalidates on focus, throttled to once per 5 s', async () => {
  const { fetcher, calls } = counter();
  await render(<Probe k={createKey()} options={{ fetcher, freshFor: 0 }} />);
  await flush();
  await fake.focus();
  await fake.focus();
  await setVisibility('hidden');
  await setVisibility('visible');
  assert.is(calls.length, 2);
  assert.match(text(), 'data=v2');
  await tick(5000);
  await fake.focus();
  assert.is(calls.length, 3, 'again once the 5 s have passed');
});

polling('skips focus revalidation while fresh or when turned off', async () => {
  const fresh = counter();
  const off = counter();
  await render(<>
    <Probe id="a" k={createKey()} options={{ fetcher: fresh.fetcher }} />
    <Probe id="b" k={createKey()} options={{ fetcher: off.fetcher, freshFor: 0, revalidateOnFocus: false }} />
  </>);
  await flush();
  await fake.focus();
  assert.is(fresh.calls.length, 1);
  assert.is(off.calls.length, 1);
});

polling.run();

// ---

const equality = setupSuite('useResource: equal data and keepPreviousData (swr)');

/** Reads only `data` and counts its renders. */
let renders = 0;
let dataOnly: Resource<unknown> | null = null;
function DataOnly({ k, options }: { k: string | null; options?: ResourceOptions<unknown> }) {
  renders++;
  dataOnly = useResource<unknown>(k, options);
  return <p id="a">{JSON.stringify(dataOnly.data ?? null)}</p>;
}

/** The cached object itself, read through mutate(fn) (which an equal value leaves as it is). */
async function cached(): Promise<unknown> {
  let current: unknown;
  await act(() => dataOnly!.mutate((value: unknown) => (current = value)));
  return current;
}

equality('a poll that returns equal data re-renders nothing and keeps the cached object', async () => {
  const answers = [{ rows: [1, 2], total: 2 }, { rows: [1, 2], total: 2 }, { rows: [1, 2, 3], total: 3 }];
  let n = 0;
  const fetcher = async () => structuredClone(answers[Math.min(n++, answers.length - 1)]);
  const key = createKey();
  renders = 0;
  await render(<DataOnly k={key} options={{ fetcher, refreshInterval: 20 }} />);
  await flush();
  const first = await cached();
  const afterLoad = renders;
  await tick(20);
  assert.is(n, 2);
  assert.is(renders, afterLoad, 'an equal answer does not render');
  assert.is(await cached(), first, 'the cached object stays the same');
  await tick(20);
  assert.is(n, 3);
  assert.is(renders, afterLoad + 1, 'a different answer renders once');
  assert.is(text(), '{"rows":[1,2,3],"total":3}');
});

equality('a hook that reads isValidating still sees each request of an equal answer', async () => {
  const { fetcher, calls } = manual();
  await render(<Probe k={createKey()} options={{ fetcher }} />);
  await act(async () => calls[0].resolve('same'));
  let refetch!: Promise<void>;
  await act(async () => void (refetch = hooks.a.mutate()));
  assert.is(text(), 'data=same error=- loading=false validating=true');
  await act(async () => (calls[1].resolve('same'), await refetch));
  assert.is(text(), 'data=same error=- loading=false validating=false');
});

equality('keepPreviousData shows the last key\'s data until the new key has its own', async () => {
  const { fetcher, calls } = manual();
  const first = createKey();
  const second = createKey();
  await render(<Probe k={first} options={{ fetcher, keepPreviousData: true }} />);
  await act(async () => calls[0].resolve('page 1'));
  await render(<Probe k={second} options={{ fetcher, keepPreviousData: true }} />);
  assert.is(text(), 'data=page 1 error=- loading=true validating=true');
  await act(async () => calls[1].resolve('page 2'));
  assert.is(text(), 'data=page 2 error=- loading=false validating=false');
  await render(<Probe k={createKey()} options={{ fetcher }} />);
  assert.match(text(), 'data=- ', 'without the option a new key starts empty');
});

equality('deepEqual compares JSON values by structure', () => {
  assert.ok(deepEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }));
  assert.not.ok(deepEqual({ a: [1] }, { a: [1, 2] }));
  assert.not.ok(deepEqual({ a: 1 }, { b: 1 }));
  assert.not.ok(deepEqual([1], { 0: 1 }));
  assert.not.ok(deepEqual(null, {}));
});

equality.run();

// ---

const conditional = setupSuite('useResource: conditional polls');

conditional('a poll sends the ETag it got as If-None-Match and keeps its data on a 304', async () => {
  const sent: (string | null)[] = [];
  let answers = 0;
  configureHttp({
    ...HTTP_DEFAULTS,
    storage: null,
    fetch: async (_input, init) => {
      sent.push(new Headers(init?.headers).get('If-None-Match'));
      answers++;
      if (answers === 1) return new Response('["agent one"]', { status: 200, headers: { ETag: 'W/"v1"' } });
      if (answers === 2) return new Response(null, { status: 304, headers: { ETag: 'W/"v1"' } });
      return new Response('["agent one","agent two"]', { status: 200, headers: { ETag: 'W/"v2"' } });
    },
  });
  try {
    await render(<Probe k="/agents/" options={{ refreshInterval: 20 }} />);
    await flush();
    assert.match(text(), 'data=agent one error=-');
    await tick(20);
    assert.is(answers, 2);
    assert.equal(sent, [null, 'W/"v1"']);
    assert.match(text(), 'data=agent one error=- loading=false validating=false', 'a 304 keeps the data, no error');
    await tick(20);
    assert.is(answers, 3);
    assert.is(sent[2], 'W/"v1"');
    assert.match(text(), 'data=agent one,agent two error=-');
  } finally {
    configureHttp(HTTP_DEFAULTS);
  }
});

conditional('an answer without an ETag is asked for unconditionally next time', async () => {
  const sent: (string | null)[] = [];
  configureHttp({
    ...HTTP_DEFAULTS,
    storage: null,
    fetch: async (_input, init) => (sent.push(new Headers(init?.headers).get('If-None-Match')), new Response('"plain"', { status: 200 })),
  });
  try {
    await render(<Probe k="/plain" options={{ refreshInterval: 20 }} />);
    await flush();
    await tick(20);
    assert.equal(sent, [null, null]);
    assert.match(text(), 'data=plain error=-');
  } finally {
    configureHttp(HTTP_DEFAULTS);
  }
});

conditional.run();
