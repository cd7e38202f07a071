// The window lookup (server/desktop/start/windows.ts) against a fake X server on a Unix socket: which window is
// under a point (the topmost viewable named one), the focused window, and that a hostile server (silent, a reply
// that claims a gigabyte, a refusal, ten thousand windows) costs that lookup only and never throws.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { WindowLookup } from '../../server/desktop/start/windows.ts';
import { FakeXServer, ROOT } from './helpers/fake-x-server.ts';

type Ctx = { x: FakeXServer; lookup: WindowLookup };
const lookups = suite<Ctx>('window lookup over X11');

// Like a desktop under evilwm: unnamed frames with the apps' windows inside, a 1x1 helper, and a hidden browser
// window (unmapped) on top of everything.
const DESKTOP = [
  { id: 0x20000d, parent: ROOT, x: 4, y: 4, width: 628, height: 786, border: 1 },
  { id: 0x40000c, parent: 0x20000d, x: 0, y: 0, width: 628, height: 786, name: 'Terminal', wmClass: ['xterm', 'XTerm'] as [string, string] },
  { id: 0x30000a, parent: ROOT, x: 640, y: 0, width: 640, height: 798 },
  { id: 0x600004, parent: 0x30000a, x: 1, y: 1, width: 638, height: 796, name: 'ignored', netName: 'New Tab - "Chromium" ✓' },
  { id: 0x20000c, parent: ROOT, x: 0, y: 0, width: 1, height: 1 },
  { id: 0x700001, parent: ROOT, x: 0, y: 0, width: 1280, height: 800, name: 'Hidden', mapped: false },
];

lookups.before.each(async (ctx) => {
  ctx.x = await FakeXServer.start();
  ctx.x.add(...DESKTOP);
  ctx.lookup = new WindowLookup({ path: ctx.x.path, cookie: Buffer.alloc(16), timeoutMs: 500 });
});

lookups.after.each(async (ctx) => {
  ctx.lookup.close();
  await ctx.x.close();
});

lookups('names the topmost viewable named window: frames looked into, unmapped windows skipped; one connection', async (ctx) => {
  assert.is(await ctx.lookup.at(320, 400), 'Terminal');
  assert.is(await ctx.lookup.at(1000, 400), 'New Tab - "Chromium" ✓', '_NET_WM_NAME before WM_NAME');
  assert.is(await ctx.lookup.at(636, 400), null, 'between the windows: the background');
  assert.is(await ctx.lookup.at(4, 400), null, 'on the frame\'s border, not in the window');
  assert.is(await ctx.lookup.at(5, 400), 'Terminal');
  const together = await Promise.all([ctx.lookup.at(10, 10), ctx.lookup.at(1000, 10), ctx.lookup.at(600, 799)]);
  assert.equal(together, ['Terminal', 'New Tab - "Chromium" ✓', null], 'lookups at once get their own answers');
  assert.is(ctx.x.connections, 1);
});

lookups('a named window over another wins; an unnamed child of a named window leaves the name to its parent', async (ctx) => {
  ctx.x.add({ id: 0x800001, parent: ROOT, x: 100, y: 100, width: 200, height: 200, name: 'Dialog' });
  ctx.x.add({ id: 0x800002, parent: 0x800001, x: 0, y: 0, width: 50, height: 50 });
  assert.is(await ctx.lookup.at(120, 120), 'Dialog');
  assert.is(await ctx.lookup.at(320, 400), 'Terminal');
});

lookups('the focused window: _NET_ACTIVE_WINDOW of the root, its WM_CLASS and title; none is null', async (ctx) => {
  assert.is(await ctx.lookup.focused(), null, 'no active window');
  ctx.x.active = 0x40000c;
  assert.equal(await ctx.lookup.focused(), { id: '0x40000c', instance: 'xterm', className: 'XTerm', title: 'Terminal' });
  ctx.x.active = 0x600004;
  assert.equal(await ctx.lookup.focused(), { id: '0x600004', instance: '', className: '', title: 'New Tab - "Chromium" ✓' });
  ctx.x.active = 0xdead;
  assert.equal(await ctx.lookup.focused(), { id: '0xdead', instance: '', className: '', title: '' }, 'a window that is not there');
  ctx.x.active = 0;
  assert.is(await ctx.lookup.focused(), null);
});

lookups('a hostile title: read up to 2 KB, cut to 80 characters, control characters as spaces', async (ctx) => {
  const hostile = Buffer.concat([Buffer.from('Evil\n\x1b[31m\u202eTerminal\0'), Buffer.from([0xff, 0xfe]), Buffer.alloc(200_000, 0x41)]);
  ctx.x.add({ id: 0x900001, parent: ROOT, x: 0, y: 0, width: 100, height: 100, netName: hostile, wmClass: ['x'.repeat(5000), 'Y'] });
  const title = (await ctx.lookup.at(50, 50))!;
  assert.is([...title].length, 80);
  assert.ok(title.startsWith('Evil  [31m Terminal �'), JSON.stringify(title.slice(0, 30)));
  assert.ok(title.endsWith('A…'));
  ctx.x.active = 0x900001;
  const focused = (await ctx.lookup.focused())!;
  assert.is(focused.title.length, 500);
  assert.is(focused.instance.length, 200);
  assert.is(focused.className, '', 'WM_CLASS read up to 2 KB: the class past it is not read');
});

lookups('ten thousand windows or a nest a thousand deep: the lookup is bounded', async (ctx) => {
  for (let i = 0; i < 10_001; i++) ctx.x.add({ id: 0xa00000 + i, parent: ROOT, x: 2000, y: 0, width: 1, height: 1 });
  assert.is(await ctx.lookup.at(320, 400), null, 'more than 10,000 windows: no answer');
  for (let i = 0; i < 10_001; i++) ctx.x.windows.delete(0xa00000 + i);
  let parent = ROOT;
  for (let i = 0; i < 1000; i++) {
    ctx.x.add({ id: 0xb00000 + i, parent, x: 0, y: 0, width: 10, height: 10, name: i === 999 ? 'Deepest' : undefined });
    parent = 0xb00000 + i;
  }
  const asked = ctx.x.requests;
  assert.is(await ctx.lookup.at(5, 5), 'Terminal', 'the nest is looked into 64 levels deep, not to its named bottom: the window below it');
  assert.ok(ctx.x.requests - asked < 64 * 8, `${ctx.x.requests - asked} requests`);
});

lookups('a server that goes silent costs that lookup (within the timeout); the next one connects again', async (ctx) => {
  assert.is(await ctx.lookup.at(320, 400), 'Terminal');
  ctx.x.mute = true;
  const started = Date.now();
  assert.is(await ctx.lookup.at(320, 400), null);
  assert.ok(Date.now() - started < 1500, `${Date.now() - started} ms`);
  ctx.x.mute = false;
  assert.is(await ctx.lookup.at(320, 400), 'Terminal');
  assert.is(ctx.x.connections, 2);
});

lookups('a reply that claims more than 1 MB drops the connection; the next lookup connects again', async (ctx) => {
  ctx.x.claim = 1;
  assert.is(await ctx.lookup.at(320, 400), null);
  ctx.x.claim = 0;
  assert.is(await ctx.lookup.at(320, 400), 'Terminal');
  assert.is(ctx.x.connections, 2);
});

lookups('a refused cookie or no server at all: null, nothing thrown; close ends the connection', async (ctx) => {
  ctx.x.refuse = true;
  assert.is(await ctx.lookup.at(320, 400), null);
  assert.is(await ctx.lookup.focused(), null);
  const nowhere = new WindowLookup({ path: `${ctx.x.path}-gone`, cookie: Buffer.alloc(16) });
  assert.is(await nowhere.at(1, 1), null);
  nowhere.close();
  ctx.x.refuse = false;
  ctx.lookup.open();
  assert.is(await ctx.lookup.at(320, 400), 'Terminal');
  const connections = ctx.x.connections;
  ctx.lookup.close();
  assert.is(await ctx.lookup.at(320, 400), null, 'closed: no lookup, no new connection');
  assert.is(ctx.x.connections, connections);
});

lookups.run();
