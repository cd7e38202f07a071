// Homes that follow the desktop (issue 50): a home is checkpointed with a generation, an unchanged one is not
// stored again, a newer generation is restored on another machine (its own data directory, one shared store), a
// hostile archive (links, devices, climbing paths, too many bytes) is refused and writes nothing outside the home,
// and a home over the limit is not stored and its owner reads why in the agent's chat. The homes are real,
// contained ones: listed and archived as the agent's uid in its job sandbox.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { Containment } from '../../server/desktop/contain/index.ts';
import { containedHomes, HomeCheckpoints } from '../../server/desktop/keep/home-checkpoints.ts';
import { insertCheckpoint } from '../../server/desktop/keep/checkpoint-rows.ts';
import { LocalStore } from '../../server/storage/local-store.ts';
import type { BlobStore } from '../../server/storage/blob-store.ts';
import { tellWhenHomeTooLarge } from '../../server/threads/messages.ts';
import { removeDataDir, testDesktopConfig, testDesktops } from './desktop-helpers.ts';
import { HAVE_XVNC } from './fleet-helpers.ts';
import { IS_ROOT, until } from './fault-helpers.ts';
import { newAgent, newUser, testServer } from './helpers.ts';

const checkpoints = suite('home checkpoints');
const quiet = { info: () => {}, error: (m: string) => process.env.TEST_VERBOSE && console.error(m) } as any;
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/** One machine: its data directory and contained homes, and the store every machine shares. */
function machine(store: BlobStore, limitMb = 64) {
  const dataDir = tempDir('aw-homes-');
  const containment = new Containment({ dataDir, log: quiet, config: { ...testDesktopConfig(), homeMb: 0 }, isolate: true });
  if (containment.problem) throw new Error(containment.problem);
  let puts = 0;
  const counted: BlobStore = { ...bind(store), put: (...args) => (puts++, store.put(...args)) };
  return {
    containment,
    puts: () => puts,
    keep: new HomeCheckpoints({ db: server.parts.db, blobs: counted, log: quiet, homes: containedHomes(containment), limitMb, instanceId: 'test' }),
  };
}
const bind = (store: BlobStore): BlobStore => ({
  kind: store.kind, put: store.put.bind(store), get: store.get.bind(store), head: store.head.bind(store),
  delete: store.delete.bind(store), deletePrefix: store.deletePrefix.bind(store), list: store.list.bind(store),
});

/** Writes a file in the home as the agent would own it. */
function plant(containment: Containment, agentId: number, rel: string, data: string | Buffer) {
  const path = join(containment.homeOf(agentId), rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, data);
  const account = containment.account(agentId)!;
  execFileSync('chown', ['-R', `${account.uid}:${account.gid}`, containment.homeOf(agentId)]);
}

const keys = async (store: BlobStore, agentId: number) => {
  const found: string[] = [];
  for await (const b of store.list(`homes/agent-${agentId}/`)) found.push(b.key);
  return found;
};

let server: Awaited<ReturnType<typeof testServer>>;
let store: LocalStore;
const test = IS_ROOT ? checkpoints : checkpoints.skip;

checkpoints.before(async () => {
  server = await testServer();
  store = new LocalStore(tempDir('aw-store-'));
});

checkpoints.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function agentOfNewUser() {
  const user = await newUser('homes');
  return { user, agent: await newAgent(user.id) };
}

test('a stop stores the home as generation 1; an unchanged home is not stored again; a change is generation 2 and 1 goes', async () => {
  const { agent } = await agentOfNewUser();
  const a = machine(store);
  await a.containment.prepareHome(agent.id);
  plant(a.containment, agent.id, 'Desktop/report.txt', 'first');

  const first = await a.keep.checkpoint(agent.id);
  assert.equal(first.stored && first.generation, 1);
  const codec = a.containment.which('zstd') ? 'zstd' : 'gzip';
  assert.equal(await keys(store, agent.id), [HomeCheckpoints.key(agent.id, 1, codec)]);
  const [row] = await server.parts.db.query('SELECT generation, home_bytes::int AS home_bytes FROM home_checkpoints WHERE agent_id = $1', [agent.id]);
  assert.equal(row.generation, 1);
  assert.ok(row.home_bytes >= 5);
  assert.is(a.keep.localGeneration(agent.id), 1);

  const again = await a.keep.checkpoint(agent.id);
  assert.equal(again, { stored: false, why: 'unchanged', generation: 1 });
  assert.is(a.puts(), 1, 'an unchanged home is not uploaded again');

  plant(a.containment, agent.id, 'Downloads/data.csv', 'a,b\n1,2\n');
  const second = await a.keep.checkpoint(agent.id);
  assert.equal(second.stored && second.generation, 2);
  assert.equal(await keys(store, agent.id), [HomeCheckpoints.key(agent.id, 2, codec)], 'the older generation is deleted');
  const rows = await server.parts.db.query('SELECT generation FROM home_checkpoints WHERE agent_id = $1', [agent.id]);
  assert.equal(rows.map((r: any) => r.generation), [2]);

  // A deleted agent's checkpoints go from the store, and this machine's note of them.
  await a.keep.forget(agent.id);
  assert.equal(await keys(store, agent.id), []);
  assert.is(a.keep.localGeneration(agent.id), 0);
});

test('a machine whose copy is older restores the newest generation, as the agent\'s, without links; then it is up to date', async () => {
  const { agent } = await agentOfNewUser();
  const a = machine(store);
  await a.containment.prepareHome(agent.id);
  plant(a.containment, agent.id, 'Desktop/notes.txt', 'kept across machines');
  plant(a.containment, agent.id, '.config/chromium/Default/Cookies', Buffer.alloc(200_000, 7));
  symlinkSync('/etc/shadow', join(a.containment.homeOf(agent.id), 'Desktop', 'shadow'));
  const stored = await a.keep.checkpoint(agent.id);
  assert.ok(stored.stored);

  const b = machine(store);
  await b.containment.prepareHome(agent.id);
  plant(b.containment, agent.id, 'Desktop/stale.txt', 'an older copy');
  assert.is(await b.keep.restore(agent.id), 1);
  const home = b.containment.homeOf(agent.id);
  assert.is(readFileSync(join(home, 'Desktop/notes.txt'), 'utf8'), 'kept across machines');
  assert.equal(readFileSync(join(home, '.config/chromium/Default/Cookies')), Buffer.alloc(200_000, 7));
  assert.not.ok(existsSync(join(home, 'Desktop/stale.txt')), 'the restore starts from an empty home');
  assert.not.ok(lstatSync(join(home, 'Desktop')).isSymbolicLink());
  assert.not.ok(readdirSync(join(home, 'Desktop')).includes('shadow'), 'a link is not archived');
  assert.ok(existsSync(join(home, '.run')), 'the home is made ready again after the restore');
  const account = b.containment.account(agent.id)!;
  assert.is(lstatSync(join(home, 'Desktop/notes.txt')).uid, account.uid);
  assert.is(b.keep.localGeneration(agent.id), 1);
  assert.is(await b.keep.restore(agent.id), null, 'a copy as new as the newest is not restored again');
  const unchanged = await b.keep.checkpoint(agent.id);
  assert.equal(unchanged, { stored: false, why: 'unchanged', generation: 1 }, 'a restored home lists as the one stored');
});

/** A tar header of `type` for `name` (GNU layout), with data of `size` bytes to follow. */
function header(name: string, type: string, size = 0, linkname = ''): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('14000000000\0', 136);
  h.write(type, 156);
  h.write(linkname, 157, 100);
  h.write('ustar  \0', 257);
  h.write('        ', 148);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}
const data = (text: string | Buffer) => {
  const b = Buffer.from(text);
  return Buffer.concat([b, Buffer.alloc((512 - (b.length % 512)) % 512)]);
};
const end = Buffer.alloc(1024);

const HOSTILE: [string, Buffer][] = [
  ['a symbolic link', Buffer.concat([header('Desktop/', '5'), header('Desktop/passwd', '2', 0, '/etc/passwd'), end])],
  ['a hard link', Buffer.concat([header('passwd', '1', 0, '/etc/passwd'), end])],
  ['a character device', Buffer.concat([header('mem', '3'), end])],
  ['a FIFO', Buffer.concat([header('pipe', '6'), end])],
  ['a climbing path', Buffer.concat([header('Desktop/../../escaped.txt', '0', 3), data('bad'), end])],
  ['an absolute path', Buffer.concat([header('/tmp/escaped.txt', '0', 3), data('bad'), end])],
  ['a climbing GNU long name', Buffer.concat([
    header('././@LongLink', 'L', 40), data(`${'a/'.repeat(10)}../../../escaped.txt\0`), header('x', '0', 3), data('bad'), end,
  ])],
  ['more bytes than the limit', Buffer.concat([header('big.bin', '0', 2 * 1024 * 1024), data(Buffer.alloc(2 * 1024 * 1024)), end])],
];

test('a hostile archive is refused whole: links, devices, climbing and absolute paths, too many bytes', async () => {
  const { agent } = await agentOfNewUser();
  const b = machine(store, 1);
  const home = b.containment.homeOf(agent.id);
  let generation = 0;
  for (const [what, tar] of HOSTILE) {
    generation++;
    const whole = Buffer.concat([header('Desktop/ok.txt', '0', 2), data('ok'), tar]);
    // Both codecs a store may hold: the first case zstd-compressed (where zstd is installed), the others gzip.
    const zstd = generation === 1 && b.containment.which('zstd');
    const gz = zstd ? execFileSync(zstd, ['-q', '-c'], { input: whole }) : gzipSync(whole);
    const key = HomeCheckpoints.key(agent.id, generation);
    await store.put(key, gz);
    const sha256 = createHash('sha256').update(gz).digest('hex');
    await insertCheckpoint(server.parts.db, {
      agent_id: agent.id, generation, blob_key: key, bytes: gz.length, home_bytes: 0, fingerprint: `hostile-${generation}`, sha256,
    }, 'test');
    await b.containment.prepareHome(agent.id);
    assert.is(await b.keep.restore(agent.id), null, `${what}: refused`);
    assert.not.ok(existsSync(join(home, 'Desktop/ok.txt')), `${what}: nothing of a refused archive stays`);
    assert.not.ok(existsSync(join(home, 'Desktop/passwd')) || existsSync(join(home, 'passwd')) || existsSync(join(home, 'mem')));
    assert.not.ok(existsSync(join(home, '..', 'escaped.txt')) || existsSync('/tmp/escaped.txt'), `${what}: nothing written outside`);
    assert.ok(existsSync(join(home, 'Desktop')) && existsSync(join(home, '.run')), `${what}: the home is ready for its desktop`);
    assert.is(b.keep.localGeneration(agent.id), generation, `${what}: not tried again`);
  }
});

test('a home over the limit is not stored, and its owner reads why in the agent\'s chat, once', async () => {
  const { agent } = await agentOfNewUser();
  const a = machine(store, 1);
  tellWhenHomeTooLarge(a.keep, server.parts.db, server.parts.bus, quiet);
  await a.containment.prepareHome(agent.id);
  plant(a.containment, agent.id, 'Downloads/big.bin', Buffer.alloc(2 * 1024 * 1024, 1));
  assert.equal(await a.keep.checkpoint(agent.id), { stored: false, why: 'too-large', generation: null });
  assert.equal(await a.keep.checkpoint(agent.id), { stored: false, why: 'too-large', generation: null });
  assert.is(a.puts(), 0);
  assert.equal(await keys(store, agent.id), []);
  const told = async () => server.parts.db.query(
    "SELECT assistant_data->>'text' AS text FROM chat_messages WHERE agent_id = $1 AND role = 'warning'", [agent.id]);
  await until(async () => (await told()).length > 0 || null, 10_000, 'the owner to be told');
  const messages = await told();
  assert.is(messages.length, 1, 'told once');
  assert.match(messages[0].text, /holds 2\.0 MB, more than the 1 MB that are kept/);

  rmSync(join(a.containment.homeOf(agent.id), 'Downloads/big.bin'));
  const fits = await a.keep.checkpoint(agent.id);
  assert.ok(fits.stored, 'stored again once it fits');
});

const withXvnc = IS_ROOT && HAVE_XVNC ? checkpoints : checkpoints.skip;
withXvnc('a real desktop: its stop stores the home, and a desktop started on another machine finds it there before it starts', async () => {
  const { agent } = await agentOfNewUser();
  const shared = new LocalStore(tempDir('aw-store-'));
  const machines = ['a', 'b'].map(() => {
    const dataDir = tempDir('aw-homes-desktop-');
    const desktops = testDesktops({ dataDir, log: quiet, config: { provider: 'xvnc', apps: ['terminal'], displayBase: 620, homeMb: 0 } });
    const containment = desktops.xvnc!.containment;
    const keep = new HomeCheckpoints({ db: server.parts.db, blobs: shared, log: quiet, homes: containedHomes(containment), limitMb: 64 });
    desktops.keepHomes(keep);
    return { dataDir, desktops, containment, keep };
  });
  const [a, b] = machines;
  try {
    await a.desktops.acquire(agent.id);
    plant(a.containment, agent.id, 'Desktop/written-on-a.txt', 'from machine a');
    await a.desktops.stop(agent.id);
    assert.is(a.keep.localGeneration(agent.id), 1, 'the stop stored generation 1');

    const desktop = await b.desktops.acquire(agent.id);
    assert.ok(!desktop.closed);
    assert.is(readFileSync(join(b.containment.homeOf(agent.id), 'Desktop/written-on-a.txt'), 'utf8'), 'from machine a');
    assert.is(b.keep.localGeneration(agent.id), 1);
    await b.desktops.stop(agent.id);
    const rows = await server.parts.db.query('SELECT generation FROM home_checkpoints WHERE agent_id = $1', [agent.id]);
    // Its shell may have written its history as it ended (a new generation then, or none): one checkpoint stays either way.
    assert.is(rows.length, 1, `one generation kept: ${JSON.stringify(rows)}`);
  } finally {
    for (const m of machines) {
      await m.desktops.stopAll();
      removeDataDir(m.dataDir);
    }
  }
});

withXvnc('Chromium\'s profile is in the home: a cookie set in the agent\'s browser on one machine is in its browser on the next', async () => {
  const { agent } = await agentOfNewUser();
  const shared = new LocalStore(tempDir('aw-store-'));
  const machines = [640, 650].map((displayBase) => {
    const dataDir = tempDir('aw-homes-browser-');
    const desktops = testDesktops({ dataDir, log: quiet, config: { provider: 'xvnc', apps: ['browser'], displayBase, homeMb: 0 } });
    const keep = new HomeCheckpoints({ db: server.parts.db, blobs: shared, log: quiet, homes: containedHomes(desktops.xvnc!.containment), limitMb: 256 });
    desktops.keepHomes(keep);
    return { dataDir, desktops, keep };
  });
  const [a, b] = machines;
  const browser = (m: typeof a) => until(() => m.desktops.xvnc!.browserOf(agent.id), 60_000, 'the desktop\'s browser', 200);
  const expires = Math.floor(Date.now() / 1000) + 86_400;
  try {
    await a.desktops.acquire(agent.id);
    await (await browser(a)).send('Storage.setCookies', {
      cookies: [{ name: 'aw_signed_in', value: 'kept-across-machines', domain: 'example.test', path: '/', expires }],
    });
    // A stop ends the browser as a logout does (it writes its cookies), then stores the home.
    await a.desktops.stop(agent.id);
    const cookiesDb = join(a.desktops.xvnc!.containment.homeOf(agent.id), '.config/chromium/Default/Cookies');
    if (execFileSync('sh', ['-c', 'command -v sqlite3 || true'], { encoding: 'utf8' }).trim()) {
      const onDisk = execFileSync('sqlite3', [cookiesDb, "SELECT host_key || ' ' || name FROM cookies"], { encoding: 'utf8' });
      assert.match(onDisk, 'example.test aw_signed_in', 'the browser wrote the cookie into its profile as it closed');
    }
    assert.is(a.keep.localGeneration(agent.id), 1);

    await b.desktops.acquire(agent.id);
    const { cookies } = await (await browser(b)).send('Storage.getCookies', {});
    const cookie = cookies.find((c: any) => c.name === 'aw_signed_in');
    assert.ok(cookie, JSON.stringify(cookies));
    assert.is(cookie.value, 'kept-across-machines');
    assert.is(cookie.domain, 'example.test');
  } finally {
    for (const m of machines) {
      await m.desktops.stopAll();
      removeDataDir(m.dataDir);
    }
  }
});

checkpoints.run();
