// A desktop's pieces start through the spawner (issue 48, item 5): the spawner killed (kill -9) while a desktop starts
// fails that start cleanly, with the reason, and leaves nothing of it running; the next start of that agent works, and a
// desktop that was running before goes on working, and still stops whole.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { processesOf } from '../../server/desktop/contain/processes.ts';
import { findBinary } from '../../server/desktop/host.ts';
import type { LocalDesktops } from '../../server/desktop/place/local-desktops.ts';
import type { RfbDesktop } from '../../server/desktop/rfb/desktop.ts';
import { processAlive } from '../../server/system/processes.ts';
import { spawner } from '../../server/system/spawner/index.ts';
import { AGENT_UID_BASE, removeDataDir, testDesktops } from './desktop-helpers.ts';

const HAVE_XVNC = !!findBinary('Xvnc', process.env.PATH ?? '');
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) };
const ctx = {} as { dir: string; manager: LocalDesktops };
const test = suite('desktop: the spawner dies during a start');

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The terminal's window is there: the X server answers (over its socket, no process started) and the app runs. */
const terminalShown = async (desktop: RfbDesktop) => (await desktop.windowAt(Math.floor(desktop.width / 4), Math.floor(desktop.height / 2))) === 'Terminal';

if (!HAVE_XVNC) {
  if (process.env.CI) test('Xvnc is installed', () => assert.unreachable('Xvnc is missing on CI'));
  else test.skip('needs Xvnc', () => {});
} else {
  test.before(() => {
    ctx.dir = mkdtempSync(join(tmpdir(), 'aw-desktop-spawner-'));
    ctx.manager = testDesktops({ dataDir: ctx.dir, log: quiet, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 870 } });
  });

  test.after(async () => {
    await ctx.manager.stopAll();
    removeDataDir(ctx.dir);
  });

  test('kill -9 of the spawner fails the start in flight; the next one works, and the running desktop is kept', async () => {
    const running = await ctx.manager.acquire(1);
    await running.ready;
    await until(() => terminalShown(running), 'the first desktop’s terminal');
    const xvnc = await processesOf(AGENT_UID_BASE + 1);
    assert.ok(xvnc.length > 0);

    // Stopped first, so that the start below is surely waiting on it when it dies.
    const first = spawner().pid!;
    process.kill(first, 'SIGSTOP');
    let err: Error | null;
    try {
      const outcome = ctx.manager.acquire(2).then(() => null, (e: Error) => e);
      // Its /tmp's mount (aw-desktop-<uid>) is one of the pieces of the start.
      const uid = String(AGENT_UID_BASE + 2);
      const asked = () => spawner().unanswered.some((child) => child.spawnargs.some((arg) => arg.includes(uid)));
      await until(asked, 'the second start asking for a process');
      process.kill(first, 'SIGKILL');
      err = await outcome;
    } finally {
      if (processAlive(first)) process.kill(first, 'SIGKILL'); // never left stopped: every later stop would wait on it
    }
    assert.instance(err, Error, 'the start failed');
    assert.match(err!.message, /spawner/);
    assert.is(ctx.manager.running(2), null);
    await until(async () => (await processesOf(AGENT_UID_BASE + 2)).length === 0, 'nothing of the failed start left');

    // The next start, through a new spawner.
    const again = await ctx.manager.acquire(2);
    assert.ok(spawner().pid && spawner().pid !== first);
    await again.ready;
    await until(() => terminalShown(again), 'the second desktop’s terminal');

    // The desktop that ran meanwhile runs on, its processes outliving the spawner that started them.
    assert.not.ok(running.closed);
    assert.ok(xvnc.every(processAlive));
    assert.ok(await terminalShown(running));
    // And still stops whole: its pieces' ends are seen without their spawner.
    await ctx.manager.stop(1);
    await until(async () => (await processesOf(AGENT_UID_BASE + 1)).length === 0, 'the first desktop’s processes to end');
  });
}

test.run();
