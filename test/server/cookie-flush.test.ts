// The desktop browser's cookies reach the disk before its desktop sleeps (issue 50): the home is checkpointed asleep,
// and a machine that takes the desktop over after the first one died restores that checkpoint, while Chromium on its
// own writes a new cookie up to 30 s later. Real contained desktops with Chromium, in this process; the fleet's
// kill -9 of a whole server is home-failover.test.ts's (PostgreSQL pass).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { containedHomes, HomeCheckpoints } from '../../server/desktop/keep/home-checkpoints.ts';
import { CookieFlush } from '../../server/desktop/start/cookie-flush.ts';
import { LocalStore } from '../../server/storage/local-store.ts';
import { AGENT_UID_BASE, removeDataDir, testDesktops } from './desktop-helpers.ts';
import { HAVE_XVNC } from './fleet-helpers.ts';
import { IS_ROOT, until } from './fault-helpers.ts';
import { newAgent, newUser, testServer } from './helpers.ts';

const flush = suite('browser cookies before sleep');
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) } as any;
const HAVE_CHROMIUM = !!execFileSync('sh', ['-c', 'command -v chromium || true'], { encoding: 'utf8' }).trim();
const HAVE_SQLITE = !!execFileSync('sh', ['-c', 'command -v sqlite3 || true'], { encoding: 'utf8' }).trim();
const test = IS_ROOT && HAVE_XVNC && HAVE_CHROMIUM ? flush : flush.skip;
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

flush.after(() => {
  for (const dir of dirs) removeDataDir(dir);
});

/** A machine: its desktops (Chromium only), its homes kept in the shared store; `uidOffset` keeps its agents' uids apart. */
async function machine(store: LocalStore, displayBase: number, uidOffset: number, sleepMs = 60_000) {
  const { parts } = await testServer();
  const config = { provider: 'xvnc' as const, apps: ['browser' as const], displayBase, homeMb: 0, sleepMs, uidBase: AGENT_UID_BASE + uidOffset };
  const desktops = testDesktops({ dataDir: tempDir('aw-cookies-'), log: quiet, config });
  const keep = new HomeCheckpoints({ db: parts.db, blobs: store, log: quiet, homes: containedHomes(desktops.xvnc!.containment), limitMb: 256 });
  desktops.keepHomes(keep);
  const browser = (agentId: number) => until(() => desktops.xvnc!.browserOf(agentId), 60_000, 'the desktop\'s browser', 200);
  const cookiesFile = (agentId: number) => join(desktops.xvnc!.containment.homeOf(agentId), '.config/chromium/Default/Cookies');
  return { desktops, keep, browser, cookiesFile };
}

// (Their values are sealed on disk: --password-store=basic still encrypts them.)
const onDisk = (file: string) => execFileSync('sqlite3', [file, "SELECT host_key || ' ' || name FROM cookies"], { encoding: 'utf8' });
const cookie = (name: string, value: string) => ({ name, value, domain: 'example.test', path: '/', expires: Math.floor(Date.now() / 1000) + 86_400 });

test('a cookie set just before the desktop sleeps is in the home checkpointed asleep, and in the next machine\'s browser', async () => {
  const user = await newUser('cookies');
  const agent = await newAgent(user.id);
  const store = new LocalStore(tempDir('aw-cookies-store-'));
  const a = await machine(store, 700, 600, 1500);
  const b = await machine(store, 710, 650);
  try {
    const desktop = await a.desktops.acquire(agent.id);
    const browser = await a.browser(agent.id);
    await desktop.ready;
    desktop.touch(); // 1.5 s from now it sleeps: the cookie is set within that, far inside Chromium's own 30 s
    await browser.send('Storage.setCookies', { cookies: [cookie('aw_signed_in', 'kept-while-asleep')] });
    await until(() => a.keep.localGeneration(agent.id) > 0 || null, 30_000, 'the checkpoint at sleep', 100);
    assert.ok(desktop.asleep, 'checkpointed asleep, not at a stop');
    if (HAVE_SQLITE) assert.match(onDisk(a.cookiesFile(agent.id)), 'example.test aw_signed_in');

    // A is never stopped (its stop would close the browser, which writes the cookies too): B restores the sleep's home.
    await b.desktops.acquire(agent.id);
    assert.is(b.keep.localGeneration(agent.id), a.keep.localGeneration(agent.id));
    const { cookies } = await (await b.browser(agent.id)).send('Storage.getCookies', {});
    const kept = cookies.find((c: any) => c.name === 'aw_signed_in');
    assert.ok(kept, JSON.stringify(cookies));
    assert.is(kept.value, 'kept-while-asleep');
  } finally {
    await a.desktops.stopAll();
    await b.desktops.stopAll();
  }
});

test('the flush writes the cookie file only when the cookies changed since the last one', async () => {
  const user = await newUser('cookies');
  const agent = await newAgent(user.id);
  const m = await machine(new LocalStore(tempDir('aw-cookies-store-')), 720, 700);
  try {
    await (await m.desktops.acquire(agent.id)).ready;
    const browser = await m.browser(agent.id);
    const flusher = new CookieFlush(m.desktops.xvnc!.containment.homeOf(agent.id));
    await browser.send('Storage.setCookies', { cookies: [cookie('aw_first', 'one')] });
    assert.is(await flusher.flush(browser), true);
    if (HAVE_SQLITE) assert.match(onDisk(m.cookiesFile(agent.id)), 'example.test aw_first');
    assert.is(await flusher.flush(browser), false, 'nothing changed: nothing written');
    await browser.send('Storage.setCookies', { cookies: [cookie('aw_first', 'two'), cookie('aw_second', 'three')] });
    assert.is(await flusher.flush(browser), true, 'a value changed and a cookie came');
    if (HAVE_SQLITE) assert.match(onDisk(m.cookiesFile(agent.id)), 'example.test aw_second');
    // The flush's own cookie is no page's.
    const { cookies } = await browser.send('Storage.getCookies', {});
    assert.equal(cookies.filter((c: any) => c.domain.includes('cookie-flush')), []);
  } finally {
    await m.desktops.stopAll();
  }
});

flush.run();
