// Homes that follow the desktop (issue 50), on a 100 MB home (60 MB that does not compress: downloads, pictures;
// 40 MB of text and profile files over 400 files), contained (listed and archived as the agent in its job sandbox)
// into a local-folder store:
//   1. checkpoint: list + tar + gzip + store of a changed home (budget ≤ 3 s; median of 3);
//   2. restore: fetch + gunzip + the checked extract into another machine's empty home (budget ≤ 2 s; median of 3);
//   3. an unchanged home: its listing only, and nothing is stored (puts must stay 0).
// Needs root (per-agent users) and bubblewrap; says so and exits otherwise.
import { register } from 'node:module';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

register('../test/setup/ts-loader.mjs', import.meta.url);
const { benchResult, median } = await import('./bench-result.mjs');
const { findBinary } = await import('../server/desktop/host.ts');
const PATH = process.env.PATH ?? '';
if (process.getuid?.() !== 0 || !findBinary('bwrap', PATH)) {
  console.log('home checkpoint bench skipped: needs root and bubblewrap');
  process.exit(0);
}
const { openDb } = await import('../server/db/db.ts');
const { migrate } = await import('../server/migrations.ts');
const { loadDesktopConfig } = await import('../server/config/index.ts');
const { Containment } = await import('../server/desktop/contain/index.ts');
const { containedHomes, HomeCheckpoints } = await import('../server/desktop/keep/home-checkpoints.ts');
const { LocalStore } = await import('../server/storage/local-store.ts');

const quiet = { info: () => {}, error: (m) => process.env.BENCH_VERBOSE && console.error(m) };
const MB = 1024 * 1024;
const dirs = [];
const temp = (prefix) => (dirs.push(mkdtempSync(join(tmpdir(), prefix))), dirs.at(-1));
const db = await openDb({ dataDir: null });
await migrate(db);
const [{ id: owner }] = await db.query(`INSERT INTO users (email) VALUES ('bench-homes@example.test') RETURNING id`);
const [{ id: agent }] = await db.query(`INSERT INTO agents (owner_id, name) VALUES ($1, 'Bench home') RETURNING id`, [owner]);
const config = { ...loadDesktopConfig({ PATH, AGENT_UID_BASE: String(7_000_000 + (process.pid % 1000) * 1000) }), homeMb: 0 };
const store = new LocalStore(temp('aw-bench-store-'));
let puts = 0;
const counted = {
  kind: 'local', get: (...a) => store.get(...a), head: (...a) => store.head(...a), delete: (...a) => store.delete(...a),
  deletePrefix: (...a) => store.deletePrefix(...a), list: (...a) => store.list(...a), put: (...a) => (puts++, store.put(...a)),
};

function machine() {
  const containment = new Containment({ dataDir: temp('aw-bench-homes-'), log: quiet, config, isolate: true });
  if (containment.problem) throw new Error(containment.problem);
  const keep = new HomeCheckpoints({ db, blobs: counted, log: quiet, homes: containedHomes(containment), limitMb: 1024 });
  return { containment, keep };
}

try {
  const a = machine();
  await a.containment.prepareHome(agent);
  const home = a.containment.homeOf(agent);
  mkdirSync(join(home, 'Downloads'));
  for (let i = 0; i < 6; i++) writeFileSync(join(home, 'Downloads', `photo-${i}.jpg`), randomBytes(10 * MB));
  const text = Buffer.from('Lorem ipsum dolor sit amet, consectetur adipiscing elit; '.repeat(1800)); // ~100 KB
  for (let i = 0; i < 400; i++) {
    const dir = join(home, '.config', 'chromium', 'Default', `part-${i % 20}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file-${i}.txt`), Buffer.concat([text, Buffer.from(String(i))]));
  }
  const { uid, gid } = a.containment.account(agent);
  execFileSync('chown', ['-R', `${uid}:${gid}`, home]);

  const checkpoints = [];
  for (let round = 0; round < 3; round++) {
    writeFileSync(join(home, 'Desktop', 'changed.txt'), 'x'.repeat(round + 1)); // a new size: the listing keeps times in whole seconds
    execFileSync('chown', [`${uid}:${gid}`, join(home, 'Desktop', 'changed.txt')]);
    const t = performance.now();
    const result = await a.keep.checkpoint(agent);
    checkpoints.push(performance.now() - t);
    if (!result.stored) throw new Error(`round ${round}: not stored (${result.why})`);
    const sizes = `${(result.bytes / MB).toFixed(1)} MB stored of ${(result.homeBytes / MB).toFixed(1)} MB`;
    console.log(`checkpoint ${round + 1}: ${(checkpoints.at(-1) / 1000).toFixed(2)} s, ${sizes}`);
  }

  const restores = [];
  for (let round = 0; round < 3; round++) {
    const b = machine();
    await b.containment.prepareHome(agent);
    const t = performance.now();
    const generation = await b.keep.restore(agent);
    restores.push(performance.now() - t);
    if (generation === null) throw new Error('nothing restored');
    console.log(`restore ${round + 1}: ${(restores.at(-1) / 1000).toFixed(2)} s`);
  }

  const before = puts;
  const t = performance.now();
  const unchanged = await a.keep.checkpoint(agent);
  const unchangedMs = performance.now() - t;
  console.log(`unchanged home: ${unchanged.stored ? 'STORED AGAIN' : unchanged.why} in ${unchangedMs.toFixed(0)} ms, ${puts - before} uploads`);

  benchResult('home checkpoint, 100 MB (median of 3)', median(checkpoints) / 1000, 's', '<= 3 s');
  benchResult('home restore, 100 MB (median of 3)', median(restores) / 1000, 's', '<= 2 s');
  benchResult('unchanged home: uploads', puts - before, 'uploads', '0', `${unchangedMs.toFixed(0)} ms to find it unchanged`);
} finally {
  await db.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
