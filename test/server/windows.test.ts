// The window under a click and the focused window of a real Xvnc desktop, asked by the server itself over X11
// (server/desktop/start/windows.ts, x11-client.ts): a test client makes the windows on a desktop with no apps,
// and the desktop answers through the socket the server kept. No process is started per lookup, a hostile title
// comes back bounded, and a name the agent plants in its /tmp never decides where the server connects.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findBinary } from '../../server/desktop/host.ts';
import { X_SOCKET } from '../../server/desktop/start/displays.ts';
import { encodeRequest, internAtom, parseInternAtom, X11Connection, xauthorityCookie } from '../../server/desktop/start/x11-client.ts';
import { xvncPidFile } from '../../server/desktop/start/xvnc.ts';
import { readProc } from '../../server/system/processes.ts';
import type { RfbDesktop } from '../../server/desktop/rfb/desktop.ts';
import { FakeXServer } from '../unit/helpers/fake-x-server.ts';
import { removeDataDir, testXvnc } from './desktop-helpers.ts';

const quiet = { info: () => {}, error: () => {} };
const AGENT = 9111; // a uid no other test's desktop has

const words = (...values: number[]) => {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32LE(v >>> 0, 4 * i));
  return b;
};

/** What a desktop program does: windows with names, mapped or not, and the root's _NET_ACTIVE_WINDOW. */
class TestClient {
  private next = 0;
  private constructor(private x: X11Connection, private atoms: Record<string, number>) {}

  static async open(path: string, cookie: Buffer): Promise<TestClient> {
    const x = await X11Connection.open({ path, cookie });
    const atoms: Record<string, number> = {};
    for (const name of ['_NET_WM_NAME', 'UTF8_STRING', '_NET_ACTIVE_WINDOW']) atoms[name] = parseInternAtom((await x.ask(internAtom(name)))!);
    return new TestClient(x, atoms);
  }

  window(x: number, y: number, width: number, height: number, names: { wm?: string; net?: string | Buffer; wmClass?: string } = {}): number {
    const id = this.x.setup.idBase | ++this.next;
    const geometry = Buffer.alloc(12);
    geometry.writeInt16LE(x, 0);
    geometry.writeInt16LE(y, 2);
    geometry.writeUInt16LE(width, 4);
    geometry.writeUInt16LE(height, 6);
    // CreateWindow: depth and visual from the parent, InputOutput, override-redirect (the window manager leaves it be).
    this.x.send(encodeRequest(1, 0, Buffer.concat([words(id, this.x.setup.root), geometry.subarray(0, 8), Buffer.from([0, 0, 1, 0]), words(0, 0x200, 1)])));
    if (names.wm !== undefined) this.property(id, 39, 31, 8, Buffer.from(names.wm, 'latin1'));
    if (names.net !== undefined) this.property(id, this.atoms._NET_WM_NAME, this.atoms.UTF8_STRING, 8, Buffer.from(names.net));
    if (names.wmClass !== undefined) this.property(id, 67, 31, 8, Buffer.from(names.wmClass, 'latin1'));
    return id;
  }

  map(id: number): void {
    this.x.send(encodeRequest(8, 0, words(id)));
  }

  unmap(id: number): void {
    this.x.send(encodeRequest(10, 0, words(id)));
  }

  activate(id: number): void {
    this.property(this.x.setup.root, this.atoms._NET_ACTIVE_WINDOW, 33, 32, words(id));
  }

  /** Waits until the X server has done everything sent (a request with a reply comes back after them). */
  async sync(): Promise<void> {
    await this.x.ask(internAtom('WM_NAME'));
  }

  close(): void {
    this.x.close();
  }

  private property(window: number, property: number, type: number, format: number, data: Buffer): void {
    const head = Buffer.alloc(20); // window, property, type, format and 3 unused bytes, length in format units
    head.writeUInt32LE(window, 0);
    head.writeUInt32LE(property, 4);
    head.writeUInt32LE(type, 8);
    head[12] = format;
    head.writeUInt32LE(data.length / (format / 8), 16);
    this.x.send(encodeRequest(18, 0, Buffer.concat([head, data])));
  }
}

/** The Xvnc of the agent's desktop (inside its sandbox's wrappers). */
function xvncPid(): number {
  for (const entry of readdirSync('/proc')) {
    const args = /^\d+$/.test(entry) ? readProc(Number(entry), 'cmdline')?.split('\0') : null;
    if (args?.[0].endsWith('Xvnc') && args.includes(`agent-${AGENT}`)) return Number(entry);
  }
  throw new Error('no Xvnc of the desktop');
}

test('a real Xvnc: the window under a point, the focused window, hostile titles, no process per lookup, no planted socket', async () => {
  if (!findBinary('Xvnc', process.env.PATH ?? '')) {
    if (process.env.CI) assert.unreachable('CI installs Xvnc');
    return void console.log('  (skipped: Xvnc is not installed)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'aw-windows-'));
  const provider = testXvnc({ dataDir: dir, log: quiet, apps: [], displayBase: 720, sound: false, pointerToTerminal: false });
  let client: TestClient | null = null;
  let planted: FakeXServer | null = null;
  let desktop: RfbDesktop | null = null;
  try {
    desktop = (await provider.start(AGENT)) as RfbDesktop;
    await (desktop as { ready?: Promise<unknown> }).ready; // the window manager is up (issue 48: apps start after the screen shows)
    const sandbox = provider.sandboxOf(AGENT)!;
    const display = Number(readFileSync(xvncPidFile(dir, AGENT), 'utf8').split('\n')[1]);
    const agentsName = sandbox.jail ? sandbox.hostPath(`/tmp/.X11-unix/X${display}`) : X_SOCKET(display);
    client = await TestClient.open(agentsName, xauthorityCookie(readFileSync(join(sandbox.home, '.Xauthority')))!);

    const back = client.window(100, 100, 400, 300, { wm: 'Back' });
    const front = client.window(300, 200, 400, 300, { net: 'Front ✓', wm: 'not this one', wmClass: 'front\0Front\0' });
    const hidden = client.window(0, 0, 800, 600, { wm: 'Hidden' });
    const hostile = Buffer.concat([Buffer.from('Evil\n\x1b]0;x\x07\u202eTerminal'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.alloc(200_000, 0x42)]);
    const evil = client.window(900, 100, 200, 200, { net: hostile, wmClass: `${'i'.repeat(1000)}\0C\0` });
    for (const id of [back, front, hidden, evil]) client.map(id);
    client.unmap(hidden);
    client.activate(front);
    await client.sync();

    assert.is(await desktop.windowAt(350, 250), 'Front ✓', 'the later window is on top; _NET_WM_NAME before WM_NAME');
    assert.is(await desktop.windowAt(150, 150), 'Back');
    assert.is(await desktop.windowAt(650, 450), 'Front ✓');
    assert.is(await desktop.windowAt(1000, 700), null, 'the background');
    assert.is(await desktop.windowAt(50, 50), null, 'the unmapped window is skipped');
    assert.equal(await desktop.focusedWindow!(), { id: `0x${front.toString(16)}`, instance: 'front', className: 'Front', title: 'Front ✓' });

    const title = (await desktop.windowAt(950, 150))!;
    assert.is([...title].length, 80, 'cut to 80 characters');
    assert.not.match(title, /[\0-\x1f\x7f\u202e]/, 'no control characters');
    assert.ok(title.startsWith('Evil  ]0;x  Terminal�('), JSON.stringify(title.slice(0, 24)));
    client.activate(evil);
    await client.sync();
    const focused = (await desktop.focusedWindow!())!;
    assert.is(focused.title.length, 500);
    assert.is(focused.instance, 'i'.repeat(200));

    // Lookups start no process: none is made (a PROCESSWRAP) in their async context. Other parts of the server may
    // start processes meanwhile (a network made ready for the next desktop): those are not the lookups'.
    let made = 0;
    const lookups = new AsyncLocalStorage<true>();
    const hook = createHook({ init: (_id, type) => void (type === 'PROCESSWRAP' && lookups.getStore() && made++) }).enable();
    try {
      await lookups.run(true, async () => {
        for (let i = 0; i < 20; i++) {
          assert.is(await desktop!.windowAt(150 + i, 150), 'Back');
          assert.is((await desktop!.focusedWindow!())?.className, 'C');
        }
      });
    } finally {
      hook.disable();
    }
    assert.is(made, 0, 'no child process was started by 40 lookups');

    if (sandbox.jail) {
      // The agent replaces its display's name with a link to an X server of its own; the server's connection is
      // dropped (Xvnc stopped past the 3 s timeout) and the next lookup connects again, through the server's link.
      planted = await FakeXServer.start();
      planted.add({ id: 0x200001, parent: 0x100, x: 0, y: 0, width: 1280, height: 800, name: 'Planted' });
      renameSync(agentsName, `${agentsName}.moved`);
      symlinkSync(planted.path, agentsName);
      const kept = join(dirname(sandbox.jail.tmp!), 'server', `X${display}`);
      assert.ok(lstatSync(kept).isSocket(), 'the server keeps a link to the display\'s socket');
      const pid = xvncPid();
      process.kill(pid, 'SIGSTOP');
      try {
        assert.is(await desktop.windowAt(150, 150), null, 'no answer within 3 s');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      assert.is(await desktop.windowAt(150, 150), 'Back', 'connected again to the desktop\'s own X server');
      assert.is(planted.connections, 0, 'the planted socket was never connected to');
    }
  } finally {
    client?.close();
    await planted?.close();
    await desktop?.stop();
    removeDataDir(dir);
  }
});

test.run();
