// The spawner (issue 48, item 5): children started through it, their pipes straight to the server, exit codes and
// signals, kill() to the whole process group, no server secret in a child's environment; a spawner killed while it
// starts a child fails that start and is replaced, and children it had started outlive it with their end still seen.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { processAlive } from '../../server/system/processes.ts';
import { Spawner, UNKNOWN_EXIT, type RemoteChild } from '../../server/system/spawner/index.ts';

const spawner = suite('spawner');
const PATH = '/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin';
let s: Spawner;
const started: number[] = [];

spawner.before.each(() => {
  s = new Spawner({ path: PATH, orphanPollMs: 50 });
});
spawner.after.each(() => {
  s.close();
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
});

async function until(test: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const exit = (child: RemoteChild) =>
  new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
const closed = (child: RemoteChild) => new Promise<void>((resolve) => child.once('close', () => resolve()));
const spawned = (child: RemoteChild) =>
  new Promise<number>((resolve, reject) => (child.once('spawn', () => (started.push(child.pid!), resolve(child.pid!))), child.once('error', reject)));
function collect(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream!.on('data', (d) => (text += d));
  return () => text;
}

spawner('a child runs outside the server: its parent is the spawner, its pipes reach the server, its exit code is told', async () => {
  const child = s.spawn('/bin/sh', ['-c', 'read line; echo "out:$line"; echo err >&2; echo "ppid:$PPID"; exit 3'], { stdio: 'pipe' });
  const [out, err] = [collect(child.stdout), collect(child.stderr)];
  child.stdin!.end('hello\n'); // written before the child exists: kept until it does
  const ended = closed(child);
  const [code, signal] = await exit(child);
  await ended;
  assert.is(code, 3);
  assert.is(signal, null);
  assert.is(child.exitCode, 3);
  assert.match(out(), /^out:hello\n/);
  assert.is(err(), 'err\n');
  assert.ok(s.pid && s.pid !== process.pid);
  assert.match(out(), new RegExp(`ppid:${s.pid}\\n`));
});

spawner('a pipe on fd 3 and on blocks for the child as a pipe of Node’s does: it waits for data written late', async () => {
  const child = s.spawn('/bin/sh', ['-c', 'exec cat <&3'], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  const [out, err] = [collect(child.stdout), collect(child.stderr)];
  const pid = await spawned(child);
  // cat asleep in its read: on a non-blocking fd it would have failed with EAGAIN and exited instead.
  await until(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.includes('(cat)') && / S /.test(stat);
  }, 'cat waiting in its read');
  child.stdio[3]!.end('late\n');
  assert.equal(await exit(child), [0, null]);
  await closed(child);
  assert.is(out(), 'late\n');
  assert.is(err(), '');
});

spawner('a program that does not exist fails with an error and a close, as with Node’s own spawn', async () => {
  const child = s.spawn('/nonexistent/program', [], { stdio: ['ignore', 'pipe', 'ignore'] });
  const err = await new Promise<Error>((resolve) => child.once('error', resolve));
  assert.match(err.message, /ENOENT/);
  await closed(child);
  assert.is.not(child.exitCode, null);
});

spawner('kill() signals the child’s whole process group, and the signal is its exit', async () => {
  const child = s.spawn('/bin/sh', ['-c', 'sleep 300 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const out = collect(child.stdout);
  await spawned(child);
  await until(() => /\d+\n/.test(out()), 'the grandchild’s pid');
  const grandchild = Number(out().trim());
  assert.ok(processAlive(grandchild));
  const ended = exit(child);
  assert.ok(child.kill('SIGTERM'));
  assert.equal(await ended, [null, 'SIGTERM']);
  await until(() => !processAlive(grandchild), 'the grandchild to end with its group');
  assert.not.ok(child.kill('SIGTERM'), 'an ended child is not signalled again');
});

spawner('a child’s environment is the one it is given, or PATH alone: nothing of the server’s', async () => {
  process.env.AW_SPAWNER_TEST_SECRET = 'hunter2';
  try {
    const bare = s.spawn('/usr/bin/env', [], { stdio: ['ignore', 'pipe', 'ignore'] });
    const given = s.spawn('/usr/bin/env', [], { stdio: ['ignore', 'pipe', 'ignore'], env: { PATH, ONLY: 'this' } });
    const [a, b] = [collect(bare.stdout), collect(given.stdout)];
    await Promise.all([closed(bare), closed(given)]);
    assert.is(a().trim(), `PATH=${PATH}`);
    assert.equal(b().trim().split('\n').sort(), ['ONLY=this', `PATH=${PATH}`]);
    // Nor the spawner's own: it was started with PATH alone.
    const own = readFileSync(`/proc/${s.pid}/environ`, 'latin1').split('\0').filter(Boolean);
    assert.equal(own, [`PATH=${PATH}`]);
  } finally {
    delete process.env.AW_SPAWNER_TEST_SECRET;
  }
});

spawner('the spawner killed while it starts a child: that start fails clearly, a new spawner starts the next', async () => {
  s.start();
  const first = s.pid!;
  await until(() => readFileSync(`/proc/${first}/cmdline`, 'latin1').includes('-e'), 'the spawner');
  // Stopped, then killed: the spawn below is surely still unanswered when it dies.
  process.kill(first, 'SIGSTOP');
  const child = s.spawn('/bin/true', []);
  const failed = new Promise<Error>((resolve) => child.once('error', resolve));
  process.kill(first, 'SIGKILL');
  assert.match((await failed).message, /spawn \/bin\/true: the spawner ended before it started/);
  const next = s.spawn('/bin/sh', ['-c', 'exit 7']);
  assert.equal(await exit(next), [7, null]);
  assert.ok(s.pid && s.pid !== first);
});

spawner('children outlive a spawner that dies, keep their pipes, and their end is still seen', async () => {
  const child = s.spawn('/bin/sh', ['-c', 'read line; echo "got:$line"; read never'], { stdio: 'pipe' });
  const out = collect(child.stdout);
  const pid = await spawned(child);
  const first = s.pid!;
  process.kill(first, 'SIGKILL');
  await until(() => s.pid !== null && s.pid !== first, 'a new spawner');
  assert.ok(processAlive(pid), 'the child runs on');
  child.stdin!.write('still here\n');
  await until(() => out() === 'got:still here\n', 'its answer through its own pipe');
  const ended = exit(child);
  assert.ok(child.kill('SIGKILL'), 'signalled without its spawner');
  assert.equal(await ended, [UNKNOWN_EXIT, null]);
  assert.not.ok(processAlive(pid));
});

spawner('the server gone (its pipe closed), the spawner ends every child: those it started and a dead spawner’s it adopted', async () => {
  const old = s.spawn('/bin/sh', ['-c', 'sleep 300 & wait']);
  const oldPid = await spawned(old);
  const first = s.pid!;
  process.kill(first, 'SIGKILL');
  await until(() => s.pid !== null && s.pid !== first, 'a new spawner');
  const young = s.spawn('/bin/sh', ['-c', 'sleep 300 & wait']);
  const youngPid = await spawned(young);
  const second = s.pid!;
  assert.ok(processAlive(oldPid) && processAlive(youngPid));
  s.close(); // as the server's death closes its end of the pipe
  await until(() => !processAlive(second), 'the spawner to exit');
  await until(() => !processAlive(oldPid) && !processAlive(youngPid), 'both children to end');
  // Their groups whole: no sleep of theirs is left (a zombie init has not reaped yet counts as gone).
  const groups = new Set([oldPid, youngPid]);
  const left = readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return state !== 'Z' && groups.has(Number(pgrp));
    } catch {
      return false;
    }
  });
  assert.equal(left, []);
});

// A sleeping desktop is frozen (cgroup freezer), and a frozen process does not die of SIGKILL until it is thawed: a
// server killed with -9 left its sleeping desktops frozen for good. Root only, with a freezer (v1's or v2's).
const V1 = '/sys/fs/cgroup/freezer';
const freezer = process.getuid?.() !== 0 ? null : existsSync(`${V1}/freezer.state`) || existsSync(`${V1}/tasks`)
  ? { dir: `${V1}/agent-workspace/spawner-test-${process.pid}`, file: 'freezer.state', frozen: 'FROZEN' }
  : existsSync('/sys/fs/cgroup/cgroup.controllers')
    ? { dir: `/sys/fs/cgroup/agent-workspace/spawner-test-${process.pid}`, file: 'cgroup.freeze', frozen: '1' } : null;
(freezer ? spawner : spawner.skip)('the server gone, a frozen child (a sleeping desktop) is thawed so that it ends too', async () => {
  const { dir, file, frozen } = freezer!;
  mkdirSync(dir, { recursive: true });
  try {
    const child = s.spawn('/bin/sh', ['-c', 'sleep 300 & wait']);
    const pid = await spawned(child);
    const sleepPid = () => readdirSync('/proc').find((e) => /^\d+$/.test(e) && readFileSync(`/proc/${e}/stat`, 'latin1').includes(` ${pid} ${pid} `)
      && Number(e) !== pid);
    await until(() => sleepPid() !== undefined, 'its sleep');
    for (const p of [pid, Number(sleepPid())]) writeFileSync(`${dir}/cgroup.procs`, String(p));
    writeFileSync(`${dir}/${file}`, frozen);
    await until(() => readFileSync(`/proc/${pid}/status`, 'latin1').includes('State:\tD') || readFileSync(`${dir}/${file}`, 'utf8').trim() === frozen,
      'the group to freeze');
    s.close();
    await until(() => !processAlive(pid), 'the frozen child to end');
    assert.equal(readFileSync(`${dir}/cgroup.procs`, 'utf8').trim(), '', 'nothing of it left in its group');
  } finally {
    try {
      writeFileSync(`${dir}/${file}`, file === 'freezer.state' ? 'THAWED' : '0');
    } catch {}
    await until(() => !existsSync(`${dir}/cgroup.procs`) || readFileSync(`${dir}/cgroup.procs`, 'utf8').trim() === '', 'the group to empty');
    rmdirSync(dir);
  }
});

spawner.run();
