// Two servers on one machine with the same AGENT_UID_BASE would stop and remove each other's desktops' processes
// and namespaces (issue 42): the second refuses to start, with one line naming AGENT_UID_BASE, while the first
// holds the range; the lock goes with the first server's process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startMain } from './main-process.ts';

const BASE = String(7_000_000 + (process.pid % 900) * 1000);
const ENV = {
  AGENT_UID_BASE: BASE, DESKTOP_PROVIDER: 'xvnc', DESKTOP_APPS: 'terminal', ADMIN_EMAIL: 'admin@uid.test', ADMIN_PASSWORD: 'correct horse battery',
};

test('a second server with the same AGENT_UID_BASE refuses to start while the first runs; after it, one starts', async () => {
  const first = startMain(ENV);
  try {
    await first.listening;
    const second = startMain(ENV);
    try {
      assert.is(await second.exited, 1);
      // Its last word, one line: who holds what, and what to do.
      const last = second.output().trim().split('\n').at(-1) ?? '';
      assert.ok(last.startsWith(`Agent Workspace cannot start: another Agent Workspace server on this machine uses AGENT_UID_BASE=${BASE}`), last);
      assert.not.ok(second.output().includes('    at '), 'no stack trace');
    } finally {
      await second.remove();
    }
  } finally {
    await first.remove(); // SIGKILL: no goodbye, and still the lock goes with it
  }
  const third = startMain(ENV);
  try {
    await third.listening;
  } finally {
    await third.remove();
  }
});

test.run();
