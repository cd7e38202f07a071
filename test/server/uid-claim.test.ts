// Two servers on one machine with the same AGENT_UID_BASE would stop and remove each other's desktops' processes
// and namespaces (issue 42): the second refuses to start, with one line naming AGENT_UID_BASE, while the first
// holds the range; the lock goes with the first server's process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BASE = String(7_000_000 + (process.pid % 900) * 1000);
const dirs: string[] = [];

function server(): { child: ChildProcess; output: () => string; listening: Promise<void>; exited: Promise<number | null> } {
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-uid-claim-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, ['--import', './test/setup/register.mjs', 'server/main.ts'], {
    env: {
      PATH: process.env.PATH, DATA_DIR: dataDir, STATIC_DIR: '', PORT: '0', SMTP_PORT: '0', AGENT_UID_BASE: BASE,
      DESKTOP_PROVIDER: 'xvnc', DESKTOP_APPS: 'terminal', ADMIN_EMAIL: 'admin@uid.test', ADMIN_PASSWORD: 'correct horse battery',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => /listening on/.test(out) && resolve());
    void exited.then((code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
  listening.catch(() => {});
  return { child, output: () => out, listening, exited };
}

test('a second server with the same AGENT_UID_BASE refuses to start while the first runs; after it, one starts', async () => {
  const first = server();
  try {
    await first.listening;
    const second = server();
    assert.is(await second.exited, 1);
    const lines = second.output().trim().split('\n').filter((l) => !l.includes('is starting: opening the database'));
    assert.ok(lines.some((l) => l.startsWith(`Agent Workspace cannot start: another Agent Workspace server on this machine uses AGENT_UID_BASE=${BASE}`)),
      second.output());
    assert.not.ok(second.output().includes('    at '), 'no stack trace');
  } finally {
    first.child.kill('SIGKILL');
    await first.exited;
  }
  // The kernel dropped the lock with the first process, however it ended.
  const third = server();
  try {
    await third.listening;
  } finally {
    third.child.kill('SIGTERM');
    await third.exited;
  }
});

test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test.run();
