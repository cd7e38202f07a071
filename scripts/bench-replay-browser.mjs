// The browser half of scripts/bench-replay.mjs: the Replay screen in headless Chromium on a 60-minute recording.
// The recording is made by the server's own recorder from frames of the real desktop at work (captured after each
// round of its actions), replayed against a stepped clock: a change every 2 s, keyframes every 30 s as in a real
// run. It becomes a run of the bench's agent; the page opens /replay/<run> (signed in), and then seeks to random
// points by clicking the scrub bar. Figures: opening → first frame shown; each click → its frame shown (the stage's
// data-seeking mark gone), measured inside the page.
import { existsSync, statSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

const CHROMIUM = '/usr/bin/chromium';
const HOUR_MS = 3600_000;
const STEP_MS = 2000;

/** Bounding box of the pixels that differ between two framebuffers, or null. */
function changed(a, b, width, height) {
  let x0 = width, y0 = height, x1 = -1, y1 = -1;
  const row = width * 4;
  for (let y = 0; y < height; y++) {
    const start = y * row;
    if (a.compare(b, start, start + row, start, start + row) === 0) continue;
    y0 = Math.min(y0, y);
    y1 = y;
    for (let x = 0; x < width; x++) {
      const i = start + x * 4;
      if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) {
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
      }
    }
  }
  return x1 < 0 ? null : { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 };
}

export async function seekFigures({ running, db, desktop, token, agentId, work }) {
  if (!existsSync(CHROMIUM)) {
    console.log('3. Replay screen bench skipped: needs /usr/bin/chromium');
    return null;
  }
  const { chromium } = await import('@playwright/test');
  const { RunRecorder } = await import('../server/replay/recorder.ts');
  const { filesDir } = await import('../server/files/storage.ts');

  // Frames of the desktop at work.
  const captures = [];
  for (let i = 0; i < 16; i++) {
    await work(1.5);
    captures.push(Buffer.from(desktop.framebuffer().data));
  }
  const { width, height } = desktop;
  let current = captures[0];
  let clock = Date.now() - HOUR_MS - 60_000;
  const started = clock;
  const stepped = Object.assign(new EventEmitter(), { agentId, width, height, framebuffer: () => ({ width, height, data: current }) });

  const thread = await (await fetch(`${running.url}/api/threads/${agentId}/create-new-thread`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ user_text: 'an hour' }),
  })).json();
  const relative = `agent-${agentId}/runs/thread-${thread.id}/run-bench-hour.guac.gz`;
  const path = join(filesDir(running.parts.config.dataDir), relative);
  await mkdir(join(path, '..'), { recursive: true });
  const made = performance.now();
  const recorder = RunRecorder.start({ desktop: stepped, path, now: () => clock });
  for (let i = 1; clock - started < HOUR_MS; i++) {
    clock += STEP_MS;
    const next = captures[i % captures.length];
    const rect = changed(current, next, width, height);
    current = next;
    if (rect) stepped.emit('update', [rect], []);
    await recorder.frameNow();
  }
  const done = await recorder.stop();
  console.log(`   (a 60-minute recording made in ${((performance.now() - made) / 1000).toFixed(0)} s: ${(done.bytes / 2 ** 20).toFixed(1)} MB)`);
  const [run] = await db.query(
    `INSERT INTO runs (thread_id, agent_id, owner_id, instance_id, started_at, ended_at, outcome, recording_path, recording_started_at,
       recording_done, recording_bytes, recording_activity)
     SELECT $1, $2, a.owner_id, $3, to_timestamp($4 / 1000.0), to_timestamp($5 / 1000.0), 'done', $6, to_timestamp($4 / 1000.0), true, $7, $8
     FROM agents a WHERE a.id = $2 RETURNING id`,
    [thread.id, agentId, running.parts.runner.id, started, clock, relative, done.bytes, JSON.stringify(done.activity)]);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const context = await browser.newContext({ baseURL: running.url, viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    if (process.env.BENCH_VERBOSE) page.on('console', (m) => console.log(`   [page] ${m.text()}`));
    // Signed in as a reader is (the form), with the app and its code cached, as a returning reader has them.
    const { signIn } = await import('../e2e/fixtures.ts');
    await signIn(page, 'bench-admin@example.test', 'bench-password-123');
    const opened = performance.now();
    await page.goto(`/replay/${run.id}`);
    await page.waitForSelector('.replay-stage[data-state="ready"]', { timeout: 60_000 }).catch(async (err) => {
      await page.screenshot({ path: join(process.env.BENCH_SHOTS ?? '/tmp', 'bench-replay-failed.png') });
      throw new Error(`the replay never showed its first frame: ${(await page.locator('main').innerText()).slice(0, 300)}`, { cause: err });
    });
    const firstFrame = performance.now() - opened;
    if (process.env.BENCH_VERBOSE) {
      const timing = await page.evaluate(() => performance.getEntriesByType('resource')
        .filter((e) => /replay|recording/.test(e.name)).map((e) => `${e.name.replace(/^.*\/api/, '')} ${e.startTime.toFixed(0)}→${e.responseEnd.toFixed(0)}`));
      console.log(`   first frame ${firstFrame.toFixed(0)} ms; ${timing.join('; ')}; page now ${(await page.evaluate(() => performance.now())).toFixed(0)}`);
    }

    // Seeks are timed on the recording once it arrived whole (Download is enabled then): one asked for while the
    // end is still on its way waits for it (the first frames play as it downloads).
    await page.getByRole('button', { name: 'Download recording' }).and(page.locator(':enabled')).waitFor({ timeout: 60_000 });
    const seeks = [];
    const bar = page.getByRole('slider', { name: 'Playback position' });
    const box = await bar.boundingBox();
    let seed = 7;
    for (let i = 0; i < 12; i++) {
      seed = (seed * 48271) % 2147483647;
      const x = box.x + 4 + ((seed % 1000) / 1000) * (box.width - 8);
      // Timed inside the page: from the press on the bar to the stage no longer seeking, its frame drawn.
      await page.evaluate(() => {
        const stage = document.querySelector('.replay-stage');
        window.__seek = new Promise((resolve) => {
          let t0 = null;
          document.addEventListener('pointerdown', () => (t0 = performance.now()), { capture: true, once: true });
          const observer = new MutationObserver(() => {
            if (t0 !== null && stage.dataset.seeking !== 'true') {
              observer.disconnect();
              resolve(performance.now() - t0);
            }
          });
          observer.observe(stage, { attributes: true, attributeFilter: ['data-seeking', 'data-last-seek-ms'] });
        });
      });
      await page.mouse.click(x, box.y + box.height / 2);
      const took = await page.evaluate(() => window.__seek);
      if (process.env.BENCH_VERBOSE) {
        console.log(`   seek ${i}: ${took.toFixed(0)} ms; player ${await page.locator('.replay-stage').getAttribute('data-last-seek-ms')} ms; ` +
          `${await bar.getAttribute('aria-valuetext')}`);
      }
      seeks.push(took);
    }
    if (process.env.BENCH_VERBOSE) console.log(`   seeks: ${seeks.map((s) => s.toFixed(0)).join(", ")} ms`);
    return { firstFrame, seeks, bytes: statSync(path).size };
  } finally {
    await browser.close();
  }
}
