// The desktop bench's browser half (bench-desktop.mjs runs it as a process of its own): our Guacamole
// gateway in the app's live view and Debian's noVNC (vnc_lite.html) through websockify, both in headless
// Chromium and both against the same Xvnc, in the same run. Its own process, because Playwright handles
// a CDP event for every WebSocket frame of both pages: in the server's process that work would sit on our
// gateway's event loop (and on nobody's for noVNC, whose websockify is a process of its own).
//   - input-to-pixel: a key pressed in the page (take-control mode for ours) until the page's canvas
//     shows it — from the page's own keydown to the first frame whose canvas differs. Twice: with both
//     pages connected, taking turns key for key (Xvnc then serves noVNC, its newest connection, first);
//     and each page alone, in turns of 24 keys, the other closed (the budget's figure)
//   - click-to-pixel, each alone in the same turns, 16 clicks a turn: a Ctrl+click on the terminal, which opens
//     xterm's menu, from the page's mousedown to the first frame that shows the menu (a click reaches our
//     server's take-over log too, which looks up the window under it); 8 a turn left the ratio's interval
//     ±20% wide
//   - bytes/s each page's WebSocket receives while the desktop is idle and while a terminal scrolls
// With each ratio of medians goes a 95% bootstrap interval: a few dozen inputs a page leave it a few % wide.
// Both pages share Xvnc's part of a key's time: ~8 ms of it is TigerVNC's frame clock, which after a quiet
// spell holds the first change for half a frame (1000/60/2 ms) before any client gets it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { freePort } from './bench-build.mjs';
import { median, ratioInterval } from './bench-result.mjs';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const NOVNC = '/usr/share/novnc';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const browserBenchAvailable = () => existsSync(CHROMIUM) && existsSync(`${NOVNC}/vnc_lite.html`) && existsSync('/usr/bin/websockify');

// Installed once in each page (so the comparison below is optimised code from the first sample on):
// __armProbe(selector, event, pixels) resolves with ms from the page's next `event` (keydown, mousedown) to the
// first frame whose canvas differs in at least `pixels` pixels, or null after 5 s. The canvas is read in the
// rendering step of each frame in which the page drew on a canvas, after every animation-frame callback (a
// ResizeObserver callback, forced by resizing a 1-pixel element when a draw happens): a client that draws in
// requestAnimationFrame (Guacamole.Display) and one that draws as messages arrive (noVNC) are then both seen
// in the frame that paints the change, whichever callback runs first. Frames without drawing are not read: a read
// every frame (~4 ms at 1280x800) and the layout it forced kept the page's main thread busy, and messages waited for
// it longer on a larger page. Nor is a frame read before the page's draws since the input cover as many pixels as
// the change sought: it cannot show the change yet. Such a read (5-12 ms, after the mouse pointer's new shape,
// which Xvnc paints into our picture and noVNC onto a cursor canvas of its own) held up the message with xterm's
// menu in our page only.
const INSTALL_PROBE = () => {
  if (window.__armProbe) return;
  const differ = (a, b, atLeast) => {
    for (let i = 0, n = 0; i < a.length; i++) if (a[i] !== b[i] && ++n >= atLeast) return true;
    return false;
  };
  const probe = document.body.appendChild(document.createElement('div'));
  probe.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;pointer-events:none';
  let check = null;
  let pending = false; // a read is due in this frame's rendering step
  let drawn = 0; // pixels drawn since the probe was armed, at most
  let wanted = 0;
  const area = (name, args) => name === 'putImageData'
    ? (args.length >= 7 ? args[5] * args[6] : args[0].width * args[0].height)
    : (args.length >= 9 ? args[7] * args[8] : args.length >= 5 ? args[3] * args[4] : args[0].width * args[0].height);
  new ResizeObserver(() => {
    pending = false;
    check?.();
  }).observe(probe);
  for (const name of ['drawImage', 'putImageData']) {
    const draw = CanvasRenderingContext2D.prototype[name];
    CanvasRenderingContext2D.prototype[name] = function (...args) {
      if (check && this.canvas.isConnected) drawn += area(name, args);
      if (check && !pending && this.canvas.isConnected && drawn >= wanted) {
        pending = true;
        probe.style.width = probe.style.width === '1px' ? '2px' : '1px';
      }
      return draw.apply(this, args);
    };
  }
  window.__armProbe = (selector, event, atLeast) => new Promise((resolve) => {
    const canvas = document.querySelector(selector);
    const ctx = canvas.getContext('2d');
    const pixels = () => new Uint32Array(ctx.getImageData(0, 0, canvas.width, canvas.height).data.buffer);
    const before = pixels();
    differ(before, before, atLeast);
    drawn = 0;
    wanted = atLeast;
    let t0 = 0;
    const finish = (value) => {
      check = null;
      resolve(value);
    };
    const timer = setTimeout(() => finish(null), 5000); // input that never shows: counted as missed
    check = () => {
      if (!t0) return;
      // The frame's time is taken before this probe reads the canvas: the read itself costs ~3 ms, more
      // when it must first rasterise drawing recorded in this frame (drawImage; putImageData writes at
      // once), which the browser would otherwise do after this point, when it paints.
      const at = performance.now();
      if (!differ(pixels(), before, atLeast)) return;
      clearTimeout(timer);
      finish(at - t0);
    };
    window.addEventListener(event, () => {
      t0 = performance.now();
      window.__inputAt = t0;
    }, { capture: true, once: true });
  });
};

// BENCH_VERBOSE: in each page, when the input went out, and when each picture message and each draw on a canvas
// of the page came (ms after its keydown or mousedown): where a page's time goes, from input to screen.
const INSTALL_TRACE = () => {
  let trace = { sent: 0, msgs: [], draws: [] };
  const since = () => performance.now() - window.__inputAt;
  window.__takeTrace = () => {
    const taken = trace;
    trace = { sent: 0, msgs: [], draws: [] };
    window.__inputAt = 0;
    return taken;
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    // noVNC's binary frames, or our tunnel's key or mouse instruction.
    if (window.__inputAt && (typeof data !== 'string' || /\.(key|mouse),/.test(data))) trace.sent ||= since();
    return send.call(this, data);
  };
  // Both clients set onmessage (noVNC refuses a WebSocket subclass).
  const onmessage = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage');
  Object.defineProperty(WebSocket.prototype, 'onmessage', {
    get() {
      return onmessage.get.call(this);
    },
    set(handler) {
      onmessage.set.call(this, handler && function (event) {
        // noVNC's binary frames, or a frame of our tunnel (not the app's other feeds).
        if (window.__inputAt && (typeof event.data !== 'string' || event.data.includes('.img,'))) trace.msgs.push(since());
        return handler.call(this, event);
      });
    },
  });
  for (const name of ['drawImage', 'putImageData']) {
    const draw = CanvasRenderingContext2D.prototype[name];
    CanvasRenderingContext2D.prototype[name] = function (...args) {
      if (window.__inputAt && this.canvas.isConnected) trace.draws.push(since()); // on the page, not a scratch canvas
      return draw.apply(this, args);
    };
  }
};

/** Of a page's trace: the first picture message, and the last message and draw before the change was seen at `t`. */
function steps({ sent, msgs, draws }, t) {
  const before = (xs) => xs.filter((v) => v <= t);
  return { sent, first: msgs[0] ?? NaN, msg: before(msgs).at(-1) ?? NaN, draw: before(draws).at(-1) ?? NaN };
}

/** Input for latencies: which page event starts the clock, and how the page gets it. */
const typing = (keys) => ({
  event: 'keydown',
  pixels: 1,
  send: (page, i) => page.keyboard.press(keys[i % keys.length]),
});
// Ctrl+click on the terminal: xterm opens its main menu while the button is held, and closes it on release.
// Seen once 1000 pixels differ (the menu is ~8500): in our picture Xvnc draws the pointer, whose shape changes
// too (~50 pixels), while noVNC draws it on a canvas of its own.
const ctrlClicks = {
  event: 'mousedown',
  pixels: 1000,
  before: async (page, selector) => {
    const box = await page.locator(selector).first().boundingBox();
    await page.mouse.move(box.x + box.width * 0.25, box.y + box.height * 0.4);
    await page.keyboard.down('Control');
  },
  send: (page) => page.mouse.down(),
  after: async (page) => {
    await page.mouse.up();
    await page.keyboard.up('Control');
    await sleep(250); // the menu has gone again
  },
};

/**
 * Input-to-pixel samples of several pages, taken in turns so that every page is measured under the same
 * load (other work on the machine changes over a run): each round, each page gets the same input, and the
 * page that goes first alternates.
 */
async function latencies(targets, input, rounds = 20) {
  const times = targets.map(() => []);
  const traces = targets.map(() => []);
  const missed = targets.map(() => 0);
  for (const { page } of targets) await page.evaluate(INSTALL_PROBE);
  for (let i = 0; i < rounds; i++) {
    // Each page goes first every other round: neither gains from always following the other's key.
    const order = [...targets.entries()];
    for (const [n, { page, selector }] of i % 2 ? order.reverse() : order) {
      await page.bringToFront();
      await input.before?.(page, selector);
      await sleep(250); // the previous input's echo has landed everywhere
      // Armed before the input is sent (input that beats the probe to the page would count as missed).
      await page.evaluate(([s, e, p]) => void (window.__probe = window.__armProbe(s, e, p)), [selector, input.event, input.pixels]);
      await input.send(page, i);
      const t = await page.evaluate(() => window.__probe);
      await input.after?.(page);
      if (t === null) missed[n]++;
      else times[n].push(t);
      const trace = process.env.BENCH_VERBOSE && (await page.evaluate(() => window.__takeTrace?.()));
      if (trace && t !== null) traces[n].push(steps(trace, t));
    }
  }
  if (process.env.BENCH_VERBOSE) {
    targets.forEach(({ name }, n) => {
      const got = traces[n];
      const at = (step) => `${median(got.map((g) => g[step])).toFixed(1)} ms`;
      if (got.length) console.log(`   ${name}, after its ${input.event}: sent ${at('sent')}, first picture message ${at('first')}, `
        + `the last before the change showed ${at('msg')}, its draw ${at('draw')}, on screen ${median(times[n]).toFixed(1)} ms (medians)`);
    });
  }
  targets.forEach(({ name }, n) => missed[n] && console.log(`   ${name}: ${missed[n]} of ${rounds} ${input.event} events never showed within 5 s`));
  return times;
}

function countBytes(page, match) {
  const counter = { bytes: 0 };
  page.on('websocket', (ws) => {
    if (!match(ws.url())) return;
    ws.on('framereceived', (f) => (counter.bytes += typeof f.payload === 'string' ? Buffer.byteLength(f.payload) : f.payload.length));
  });
  return counter;
}

/** { ours: {latency, idle, scrolling}, novnc: {…} } in ms and bytes/s. */
export async function compareInBrowsers({ base, admin, agentId, socketPath, log, condition = '' }) {
  const port = await freePort();
  const websockify = spawn('/usr/bin/websockify', ['--web', NOVNC, `--unix-target=${socketPath}`, `127.0.0.1:${port}`], { stdio: 'ignore' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    if (process.env.BENCH_VERBOSE) await context.addInitScript(INSTALL_TRACE);
    const ours = await context.newPage();
    const oursBytes = countBytes(ours, (u) => u.includes('/api/desktop/tunnel/'));
    // BENCH_VERBOSE: when each key left the page and each frame's first image and sync came back.
    const trace = [];
    if (process.env.BENCH_VERBOSE) {
      ours.on('websocket', (ws) => {
        ws.on('framesent', (f) => typeof f.payload === 'string' && /(^|;)3\.key,/.test(f.payload) && trace.push(['key', performance.now()]));
        ws.on('framereceived', (f) => typeof f.payload === 'string' && /3\.img,/.test(f.payload) && trace.push(['img', performance.now()]));
      });
    }
    await ours.goto(base + '/');
    await ours.evaluate(async (a) => {
      const res = await fetch('/api/auth/sign-in', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(a) });
      if (!res.ok) throw new Error(`sign-in ${res.status}`);
    }, admin);
    // Focus the terminal (left half) in each, through each client.
    const oursCanvas = '.live-display canvas';
    const novncCanvas = '#screen canvas';
    const clickIn = async (page, selector) => {
      await page.bringToFront();
      const box = await page.locator(selector).first().boundingBox();
      await page.mouse.click(box.x + box.width * 0.25, box.y + box.height * 0.5);
    };
    const openOurs = async () => {
      await ours.goto(`${base}/agent/${agentId}`);
      await ours.waitForSelector('.live-frame[data-state="connected"]', { timeout: 30_000 });
      await ours.locator('.live-frame').hover();
      // Coming back, the page may get control back by itself (the server still holds it for this person). The
      // view's data-control says so: the "You have control" badge shows for 3 s only, and may be gone already.
      const take = ours.getByRole('button', { name: 'Take control' });
      const hasControl = ours.locator('.live-view[data-control]');
      await take.or(hasControl).first().waitFor();
      if (await take.isVisible()) await take.click();
      await hasControl.waitFor();
      await clickIn(ours, oursCanvas);
    };
    const novnc = await context.newPage();
    const novncBytes = countBytes(novnc, (u) => u.includes(`:${port}/`));
    const openNoVnc = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          await novnc.goto(`http://127.0.0.1:${port}/vnc_lite.html?host=127.0.0.1&port=${port}&path=websockify`);
          await novnc.waitForFunction(() => /Connected/.test(document.querySelector('#status')?.textContent ?? ''), null, { timeout: 10_000 });
          break;
        } catch (err) {
          if (attempt >= 5) throw err; // websockify may still be starting
          await sleep(500);
        }
      }
      await sleep(1500);
      await clickIn(novnc, novncCanvas);
    };
    const targets = { ours: { name: 'ours', page: ours, selector: oursCanvas }, novnc: { name: 'noVNC', page: novnc, selector: novncCanvas } };
    const keys = ['x', 'Backspace'];

    // Both connected, noVNC last. Xvnc writes each update to its newest connection first (TigerVNC's
    // VNCServerST puts a new client at the front of its list), so here every echo reaches noVNC before our
    // gateway: printed, but not the budget's figure.
    await openOurs();
    await openNoVnc();
    await sleep(500);
    const [oursTogether, novncTogether] = await latencies([targets.ours, targets.novnc], typing(keys));
    if (trace.length) {
      const gaps = [];
      trace.forEach(([kind, t], i) => kind === 'key' && trace[i + 1]?.[0] === 'img' && gaps.push(trace[i + 1][1] - t));
      log(`   ours: key sent → first image received at the page: median ${median(gaps).toFixed(1)} ms over ${gaps.length}; ` +
        `page latencies ${oursTogether.map((t) => t.toFixed(0)).join(' ')}`);
      log(`   noVNC page latencies ${novncTogether.map((t) => t.toFixed(0)).join(' ')}`);
    }

    // Each alone, in turns (ours, noVNC, ours, noVNC), the other page closed: each client is then Xvnc's
    // newest viewer connection. The server's own RFB connection stays, as it does for any running desktop
    // (screenshots, the agent), and is served after noVNC's.
    const alone = { ours: [], novnc: [] };
    const clicks = { ours: [], novnc: [] };
    let open = { ours: true, novnc: true };
    for (const which of ['ours', 'novnc', 'ours', 'novnc']) {
      const other = which === 'ours' ? 'novnc' : 'ours';
      if (open[other]) await targets[other].page.goto('about:blank');
      if (!open[which]) await (which === 'ours' ? openOurs() : openNoVnc());
      open = { [which]: true, [other]: false };
      await sleep(1000);
      const [times] = await latencies([targets[which]], typing(keys), 24);
      alone[which].push(...times);
      clicks[which].push(...(await latencies([targets[which]], ctrlClicks, 16))[0]);
    }
    const list = (times) => times.map((t) => t.toFixed(0)).join(' ');
    if (process.env.BENCH_VERBOSE) {
      log(`   alone: ours ${list(alone.ours)}; noVNC ${list(alone.novnc)}; clicks: ours ${list(clicks.ours)}; noVNC ${list(clicks.novnc)}`);
    }
    await openOurs(); // both again, for the traffic figures

    // Ours in front from here on, as the page a person watches would be (both draw as messages arrive, in
    // front or not, but a page in the background gets no animation frames for anything else it does).
    await ours.bringToFront();
    // Idle: both connected, nothing changes on the desktop.
    await sleep(1500);
    let [o, n] = [oursBytes.bytes, novncBytes.bytes];
    await sleep(10_000);
    const idle = { ours: (oursBytes.bytes - o) / 10, novnc: (novncBytes.bytes - n) / 10 };

    // A scrolling terminal, typed through noVNC; both watch the same output.
    await novnc.keyboard.type('while :; do ls -la /usr/bin; done');
    await novnc.keyboard.press('Enter');
    await sleep(1500);
    [o, n] = [oursBytes.bytes, novncBytes.bytes];
    await sleep(5000);
    const scrolling = { ours: (oursBytes.bytes - o) / 5, novnc: (novncBytes.bytes - n) / 5 };
    // Stopped and quiet again before the next run (a terminal still scrolling would answer every key at once).
    for (let second = 0; second < 30; second++) {
      if (second % 3 === 0) await novnc.keyboard.press('Control+C');
      const before = oursBytes.bytes;
      await sleep(1000);
      if (oursBytes.bytes - before < 1024) break;
    }

    const result = {
      ours: { latency: median(alone.ours), click: median(clicks.ours), together: median(oursTogether), idle: idle.ours, scrolling: scrolling.ours },
      novnc: { latency: median(alone.novnc), click: median(clicks.novnc), together: median(novncTogether), idle: idle.novnc, scrolling: scrolling.novnc },
      // Each median is of a few dozen inputs: how far their ratio can be trusted.
      interval: { latency: ratioInterval(alone.ours, alone.novnc), click: ratioInterval(clicks.ours, clicks.novnc) },
    };
    const where = `6. in Chromium, same Xvnc${condition ? `, ${condition}` : ''}`;
    log(`${where} — input-to-pixel median, each alone in turns: ours ${result.ours.latency.toFixed(1)} ms, noVNC ${result.novnc.latency.toFixed(1)} ms ` +
      `(both connected, noVNC served first: ours ${result.ours.together.toFixed(1)} ms, noVNC ${result.novnc.together.toFixed(1)} ms); ` +
      `click-to-pixel (Ctrl+click, xterm's menu) median, each alone in turns: ` +
      `ours ${result.ours.click.toFixed(1)} ms, noVNC ${result.novnc.click.toFixed(1)} ms; ` +
      `idle: ours ${result.ours.idle.toFixed(0)} B/s, noVNC ${result.novnc.idle.toFixed(0)} B/s; ` +
      `scrolling terminal: ours ${(result.ours.scrolling / 1024).toFixed(1)} KiB/s, noVNC ${(result.novnc.scrolling / 1024).toFixed(1)} KiB/s`);
    return result;
  } finally {
    await browser.close();
    websockify.kill();
  }
}

/** Runs compareInBrowsers in a process of its own; its lines are printed as they come. */
export function compareInOwnProcess(options) {
  return new Promise((resolve, reject) => {
    const { log: _log, ...args } = options;
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let result = null;
    let rest = '';
    child.stdout.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        if (line.startsWith('RESULT ')) result = JSON.parse(line.slice(7));
        else options.log(line);
      }
    });
    const stop = () => child.kill('SIGKILL'); // a bench that gives up on it (timeout) does not leave it running
    process.once('exit', stop);
    child.on('error', reject);
    child.on('close', () => process.off('exit', stop));
    child.on('close', (code) => (result ? resolve(result) : reject(new Error(`browser comparison exited with ${code}`))));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await compareInBrowsers({ ...JSON.parse(process.argv[2]), log: console.log });
  console.log(`RESULT ${JSON.stringify(result)}`);
  process.exit(0);
}
