// The DevTools pipe (server/desktop/start/devtools-pipe.ts) against a fake peer that misbehaves, then
// browser-focus.ts against the real Debian Chromium on a pipe, headless, reading pages of a local server: a
// sign-in form, a password field in a cross-origin iframe, a page that lies about its focus from its own scripts,
// and a page stuck in a busy loop. Needs /usr/bin/chromium.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { DevtoolsError, DevtoolsPipe } from '../../server/desktop/start/devtools-pipe.ts';
import { focusedField, type FocusedField } from '../../server/desktop/start/browser-focus.ts';

async function until<T>(test: () => T | Promise<T>, what: string, ms = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve().then(test).catch(() => null); // a page between documents throws
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

/** A pipe to a fake browser: `commands` is what the pipe wrote, `answer()` writes raw bytes back. */
function fakePeer(options?: { maxMessageBytes?: number; timeoutMs?: number }) {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const commands: any[] = [];
  let text = '';
  toBrowser.on('data', (chunk: Buffer) => {
    const parts = (text + chunk.toString()).split('\0');
    text = parts.pop()!;
    commands.push(...parts.map((p) => JSON.parse(p)));
  });
  const pipe = new DevtoolsPipe(toBrowser, fromBrowser, options);
  return { pipe, commands, fromBrowser, answer: (raw: string | Buffer) => fromBrowser.write(raw) };
}

// ---

const pipes = suite('devtools pipe: a browser that misbehaves');

pipes('answers by id across chunks, past events and answers to ids it never sent', async () => {
  const { pipe, commands, answer } = fakePeer();
  const version = pipe.send('Browser.getVersion');
  const evaluated = pipe.send('Runtime.evaluate', { expression: '1' }, 'S1');
  assert.equal(commands, [
    { id: 1, method: 'Browser.getVersion', params: {} },
    { id: 2, method: 'Runtime.evaluate', params: { expression: '1' }, sessionId: 'S1' },
  ]);
  answer('{"method":"Target.targetCreated","params":{}}\0{"id":77,"result":{}}\0{"id":2,"res');
  for (const byte of Buffer.from('ult":{"value":1}}\0{"id":1,"result":{"product":"x"}}\0')) answer(Buffer.from([byte]));
  assert.equal(await evaluated, { value: 1 });
  assert.equal(await version, { product: 'x' });
  assert.not.ok(pipe.closed);
});

pipes('a CDP error rejects that command with a DevtoolsError and keeps the pipe', async () => {
  const { pipe, answer } = fakePeer();
  const sent = pipe.send('Nope.nope');
  answer('{"id":1,"error":{"code":-32601,"message":"\'Nope.nope\' wasn\'t found"}}\0');
  const err = await rejection(sent);
  assert.instance(err, DevtoolsError);
  assert.match(err.message, /Nope\.nope: 'Nope\.nope' wasn't found \(-32601\)/);
  assert.not.ok(pipe.closed);
});

pipes('a malformed message closes the pipe and rejects every pending command', async () => {
  const { pipe, answer } = fakePeer();
  const pending = [pipe.send('A.a'), pipe.send('B.b')];
  answer('{"id":1,"result":{}\0');
  for (const err of await Promise.all(pending.map(rejection))) {
    assert.instance(err, DevtoolsError);
    assert.match(err.message, /closed \(a message that is not JSON\)/);
  }
  assert.ok(pipe.closed);
  assert.instance(await rejection(pipe.send('C.c')), DevtoolsError);
  pipe.close(); // again: nothing happens
});

pipes('a message over the limit closes the pipe before its end comes', async () => {
  const { pipe, answer } = fakePeer({ maxMessageBytes: 4096 });
  const sent = pipe.send('A.a');
  answer(`{"id":1,"result":{"pad":"${'x'.repeat(3000)}`);
  assert.not.ok(pipe.closed);
  answer('x'.repeat(2000));
  assert.ok(pipe.closed);
  assert.match((await rejection(sent)).message, /a message over 4096 bytes/);
});

pipes('a command with no answer rejects after timeoutMs; its late answer is ignored', async () => {
  const { pipe, answer } = fakePeer({ timeoutMs: 50 });
  const started = Date.now();
  const err = await rejection(pipe.send('Slow.slow'));
  assert.instance(err, DevtoolsError);
  assert.match(err.message, /no answer from the browser within 50 ms/);
  assert.ok(Date.now() - started >= 45);
  answer('{"id":1,"result":{}}\0');
  const next = pipe.send('Fast.fast');
  answer('{"id":2,"result":{"ok":true}}\0');
  assert.equal(await next, { ok: true });
});

pipes('the browser ending its side closes the pipe', async () => {
  const { pipe, fromBrowser } = fakePeer();
  const sent = pipe.send('A.a');
  fromBrowser.end();
  assert.instance(await rejection(sent), DevtoolsError);
  assert.ok(pipe.closed);
});

pipes.run();

// ---

const focus = suite('browser focus: the real Chromium on a pipe');
const ctx = {} as { server: Server; origin: string; other: string; chromium: ChildProcess; tmp: string; pipe: DevtoolsPipe };
/** The first tab: its target, and the test's own session on it. */
const tab = { targetId: '', session: '' };
const PAGES: Record<string, string> = {
  '/signin': '<form><input name=user autofocus><input type=password name=pass></form>',
  // Cross-origin (localhost vs 127.0.0.1): the field is in another renderer, out of the top page's reach.
  '/framed': '<iframe style="position:fixed;left:0;top:0;width:400px;height:100px;border:0" src="OTHER/inner"></iframe>',
  '/inner': '<input type=password name=pass style="position:fixed;left:0;top:0;width:300px;height:50px">',
  // The truth is a plain text field; the page's own scripts say it is a password field.
  '/liar': `<input name=user autofocus><input type=password name=pass><script>
    const pass = document.querySelector('[name=pass]');
    Object.defineProperty(Document.prototype, 'activeElement', { get: () => pass });
    Object.defineProperty(HTMLInputElement.prototype, 'type', { get: () => 'password' });
  </script>`,
  '/busy': '<input autofocus><script>onload = () => setTimeout(() => { for (;;); }, 100)</script>',
};

/** Runs an expression in the page's main world, through the test's own session. */
async function inPage(expression: string): Promise<any> {
  const { result, exceptionDetails } = await ctx.pipe.send('Runtime.evaluate', { expression, returnByValue: true }, tab.session);
  if (exceptionDetails) throw new Error(`${expression} threw`);
  return result.value;
}

/** Loads a page of the test server in the tab, until `ready` holds there and the page has the focus. */
async function open(path: string, ready: string): Promise<void> {
  await ctx.pipe.send('Page.navigate', { url: `${ctx.origin}${path}` }, tab.session);
  await until(() => inPage(`location.pathname === '${path}' && document.readyState === 'complete' && (${ready})`), `${path} loaded`);
  // Headless Chromium may not give a page the focus; then the test (never the product) emulates it.
  if (!(await inPage('document.hasFocus()'))) await ctx.pipe.send('Emulation.setFocusEmulationEnabled', { enabled: true }, tab.session);
}

async function field(): Promise<FocusedField> {
  return until(() => focusedField(ctx.pipe), 'a focused field');
}

focus.before(async () => {
  ctx.server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end((PAGES[req.url ?? ''] ?? '<p>nothing here</p>').replace('OTHER', ctx.other));
  });
  await new Promise<void>((r) => ctx.server.listen(0, '127.0.0.1', r));
  const { port } = ctx.server.address() as AddressInfo;
  [ctx.origin, ctx.other] = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  ctx.tmp = mkdtempSync(join(tmpdir(), 'aw-devtools-pipe-'));
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--remote-debugging-pipe', `--user-data-dir=${ctx.tmp}`, `${ctx.origin}/signin`];
  // Its own process group, so the after hook ends its renderers too.
  ctx.chromium = spawn('/usr/bin/chromium', args, { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], detached: true });
  ctx.pipe = new DevtoolsPipe(ctx.chromium.stdio[3] as Writable, ctx.chromium.stdio[4] as Readable, { timeoutMs: 10_000 });
  const page = await until(async () => {
    const { targetInfos } = await ctx.pipe.send('Target.getTargets');
    return targetInfos.find((t: any) => t.type === 'page');
  }, 'the first tab', 30_000);
  tab.targetId = page.targetId;
  ({ sessionId: tab.session } = await ctx.pipe.send('Target.attachToTarget', { targetId: page.targetId, flatten: true }));
});

focus.after(async () => {
  ctx.pipe?.close();
  if (ctx.chromium?.pid && ctx.chromium.exitCode === null && ctx.chromium.signalCode === null) {
    const exited = new Promise((r) => ctx.chromium.once('exit', r));
    try {
      process.kill(-ctx.chromium.pid, 'SIGKILL');
    } catch {} // already gone
    await exited;
  }
  if (ctx.tmp) rmSync(ctx.tmp, { recursive: true, force: true, maxRetries: 3 });
  await new Promise((r) => ctx.server?.close(r) ?? r(null));
});

focus('sign-in form: the autofocused user field is text, then the password field, each on the server origin', async () => {
  await open('/signin', "document.activeElement.name === 'user'");
  const user = await field();
  assert.equal([user.origin, user.element], [ctx.origin, 'text']);
  assert.ok(await user.stillFocused());
  await user.release();
  await inPage("document.querySelector('[name=pass]').focus()");
  const pass = await field();
  assert.equal([pass.origin, pass.element], [ctx.origin, 'password']);
  assert.ok(await pass.stillFocused());
  await inPage("document.querySelector('[name=user]').focus()");
  assert.not.ok(await pass.stillFocused(), 'the focus moved to another field');
  await inPage("document.querySelector('[name=pass]').focus()");
  assert.not.ok(await pass.stillFocused(), 'back on the same element, but it left in between (keys meanwhile went elsewhere)');
  const again = await field();
  assert.ok(await again.stillFocused(), 'asked afresh, it has the focus');
  await again.release();
  await pass.release();
  assert.not.ok(await pass.stillFocused(), 'released');
});

focus('the same field after the page navigates away is no longer focused', async () => {
  await open('/signin', "document.activeElement.name === 'user'");
  const user = await field();
  assert.ok(await user.stillFocused());
  await open('/liar', 'true');
  assert.not.ok(await user.stillFocused());
  await user.release();
});

focus('a password field inside a cross-origin iframe is a frame', async () => {
  await open('/framed', "document.querySelector('iframe')");
  // A click into the frame's field: the only way in from outside, and how a user would do it.
  await until(async () => {
    for (const type of ['mousePressed', 'mouseReleased']) {
      await ctx.pipe.send('Input.dispatchMouseEvent', { type, x: 50, y: 20, button: 'left', clickCount: 1 }, tab.session);
    }
    return inPage("document.activeElement.tagName === 'IFRAME'");
  }, 'the focus in the iframe');
  const framed = await field();
  assert.equal([framed.origin, framed.element], [ctx.origin, 'frame']);
  await framed.release();
});

focus("a page's own scripts cannot make a text field pass for a password field", async () => {
  await open('/liar', 'true');
  assert.equal(await inPage('[document.activeElement.name, document.activeElement.type]'), ['pass', 'password'], 'the page lies');
  const liar = await field();
  assert.equal([liar.origin, liar.element], [ctx.origin, 'text']);
  assert.ok(await liar.stillFocused());
  await liar.release();
});

focus("an about:blank popup the page writes into has the page's origin inside, 'null' outside: not verifiable", async () => {
  await open('/signin', "document.activeElement.name === 'user'");
  const write = "window.open('').document.write('<input type=password autofocus>')";
  await ctx.pipe.send('Runtime.evaluate', { expression: write, userGesture: true }, tab.session);
  const popup = await until(async () => {
    const found = await focusedField(ctx.pipe);
    return found?.origin === 'null' ? found : null;
  }, 'the popup focused');
  assert.is(popup.element, 'frame');
  await popup.release();
  const { targetInfos } = await ctx.pipe.send('Target.getTargets');
  const blank = targetInfos.find((t: any) => t.type === 'page' && t.url === 'about:blank');
  await ctx.pipe.send('Target.closeTarget', { targetId: blank.targetId });
});

focus('with several tabs open, the focused one is found among them', async () => {
  const tabs = [];
  for (const path of ['/liar', '/framed', '/signin']) tabs.push(await ctx.pipe.send('Target.createTarget', { url: `${ctx.origin}${path}` }));
  // A tab in the background gets no autofocus: bring the first one to the front, then load it.
  await ctx.pipe.send('Target.activateTarget', { targetId: tab.targetId });
  await open('/signin', "document.activeElement.name === 'user'");
  // How long asking takes is the vault bench's (scripts/bench-vault.mjs), not a timed assertion here.
  const user = await field();
  assert.equal([user.origin, user.element], [ctx.origin, 'text']);
  await user.release();
  for (const { targetId } of tabs) await ctx.pipe.send('Target.closeTarget', { targetId });
});

focus('a focused page stuck in a busy loop is passed over within the bound: no field', async () => {
  // Another site than the other pages' (localhost): its own renderer, so the loop stalls only this page.
  const { targetId } = await ctx.pipe.send('Target.createTarget', { url: `${ctx.other}/busy` });
  const { sessionId } = await ctx.pipe.send('Target.attachToTarget', { targetId, flatten: true });
  await until(async () => {
    const answer = ctx.pipe.send('Runtime.evaluate', { expression: 'document.hasFocus()', returnByValue: true }, sessionId);
    return !(await Promise.race([answer.then(() => true, () => true), new Promise((r) => setTimeout(r, 500, false))]));
  }, 'the busy page stuck');
  const started = performance.now();
  assert.is(await focusedField(ctx.pipe), null);
  assert.ok(performance.now() - started < 1500);
});

if (existsSync('/usr/bin/chromium')) focus.run();
