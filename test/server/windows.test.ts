// The window under a click, asked of one xwininfo shell kept on the desktop (server/desktop/start/windows.ts),
// here with a fake xwininfo on the shell's PATH whose answers each case writes: one shell for many lookups, and
// an answer that is hostile (framing-like text, too long, none at all, a shell killed) costs that lookup only.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WindowLookup } from '../../server/desktop/start/windows.ts';
import type { SpawnOptions } from '../../server/desktop/contain/sandbox.ts';

const TREE = [
  'xwininfo: Window id: 0x519 (the root window) (has no name)',
  '     2 children:',
  '     0x20000d (has no name): ()  628x786+4+4  +4+4',
  '        1 child:',
  '        0x40000c "Terminal": ("xterm" "XTerm")  628x786+0+0  +5+5',
  '     0x600004 "Hidden": ("chromium" "Chromium")  640x798+640+0  +640+0',
].join('\n');
const VIEWABLE = '  Map State: IsViewable\n';

type Ctx = { dir: string; shells: ChildProcess[]; lookup: WindowLookup };
const windows = suite<Ctx>('window lookup shell');

/** A sandbox whose programs find the fake xwininfo first; it counts what it starts. */
function fakeSandbox(dir: string, shells: ChildProcess[]) {
  return {
    which: (name: string) => (name === 'xwininfo' ? join(dir, 'xwininfo') : null),
    spawn(command: string, args: string[], options: SpawnOptions = {}) {
      const child = spawn(command, args, { env: { PATH: `${dir}:/usr/bin:/bin`, FAKE: dir, ...options.env }, stdio: options.stdio ?? 'ignore' });
      shells.push(child);
      return child;
    },
  };
}

const answer = (ctx: Ctx, name: string, text: string) => writeFileSync(join(ctx.dir, name), text);
const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

windows.before.each((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'aw-windows-'));
  writeFileSync(join(ctx.dir, 'xwininfo'), [
    '#!/bin/sh',
    '[ -f "$FAKE/hang" ] && exec sleep 30',
    'if [ "$1" = -root ]; then cat "$FAKE/tree"; else cat "$FAKE/id-$2" 2>/dev/null; fi',
  ].join('\n'));
  chmodSync(join(ctx.dir, 'xwininfo'), 0o755);
  answer(ctx, 'tree', TREE);
  answer(ctx, 'id-0x40000c', VIEWABLE);
  answer(ctx, 'id-0x600004', '  Map State: IsUnMapped\n');
  ctx.shells = [];
  ctx.lookup = new WindowLookup(fakeSandbox(ctx.dir, ctx.shells), {}, 1500);
});

windows.after.each((ctx) => {
  ctx.lookup.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

windows('names the topmost viewable window; many lookups, one shell', async (ctx) => {
  assert.is(await ctx.lookup.at(100, 100), 'Terminal');
  assert.is(await ctx.lookup.at(1000, 100), null, 'an unmapped window is skipped');
  assert.is(await ctx.lookup.at(636, 900), null, 'the background');
  const together = await Promise.all([ctx.lookup.at(10, 10), ctx.lookup.at(1000, 10), ctx.lookup.at(600, 700)]);
  assert.equal(together, ['Terminal', null, 'Terminal'], 'lookups at once get their own answers');
  assert.is(ctx.shells.length, 1);
  assert.ok(alive(ctx.shells[0]));
});

windows('open starts the shell before the first lookup; close ends it', async (ctx) => {
  ctx.lookup.open();
  assert.is(ctx.shells.length, 1);
  assert.is(await ctx.lookup.at(100, 100), 'Terminal');
  assert.is(ctx.shells.length, 1);
  const shell = ctx.shells[0];
  const exited = new Promise((resolve) => shell.once('exit', resolve));
  ctx.lookup.close();
  await exited;
  assert.not.ok(alive(shell));
});

windows('a title that looks like the framing is only text: the next lookup is in step', async (ctx) => {
  const name = 'Evil\\n12\\nTerminal';
  answer(ctx, 'tree', TREE.replace('"Terminal"', `"${name}\n3\nabc"`));
  assert.is(await ctx.lookup.at(100, 100), null, 'the line no longer parses: no window');
  answer(ctx, 'tree', TREE.replace('"Terminal"', '"Über 12\\n"'));
  assert.is(await ctx.lookup.at(100, 100), 'Über 12n', 'counted in bytes, not characters');
  answer(ctx, 'tree', TREE);
  assert.is(await ctx.lookup.at(100, 100), 'Terminal');
  assert.is(ctx.shells.length, 1, 'no answer put the shell out of step');
});

windows('an answer that never comes, or is too long, costs that lookup; a new shell answers the next', async (ctx) => {
  answer(ctx, 'hang', '');
  const started = Date.now();
  assert.is(await ctx.lookup.at(100, 100), null);
  assert.ok(Date.now() - started < 5000, 'given up after the answer time');
  rmSync(join(ctx.dir, 'hang'));
  assert.is(await ctx.lookup.at(100, 100), 'Terminal');
  assert.is(ctx.shells.length, 2, 'the hung shell was replaced');
  assert.ok(ctx.shells[0].killed);

  answer(ctx, 'tree', 'x'.repeat(2 * 1024 * 1024));
  assert.is(await ctx.lookup.at(100, 100), null);
  answer(ctx, 'tree', TREE);
  assert.is(await ctx.lookup.at(100, 100), 'Terminal');
  assert.is(ctx.shells.length, 3, 'the shell that sent too much was replaced');
});

windows('a shell killed on the desktop is started again at the next lookup', async (ctx) => {
  assert.is(await ctx.lookup.at(100, 100), 'Terminal');
  const exited = new Promise((resolve) => ctx.shells[0].once('exit', resolve));
  process.kill(ctx.shells[0].pid!, 'SIGKILL');
  await exited;
  assert.is(await ctx.lookup.at(100, 100), 'Terminal');
  assert.is(ctx.shells.length, 2);
});

windows('window ids that are not xwininfo\'s are never passed to the shell', async (ctx) => {
  answer(ctx, 'tree', TREE.replace('0x40000c', '0x123456789'));
  answer(ctx, 'id-0x123456789', VIEWABLE);
  assert.is(await ctx.lookup.at(100, 100), null, 'longer than a window id');
});

windows.run();
