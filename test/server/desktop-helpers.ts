// A Guacamole viewer for tests and the bench: speaks the tunnel like guacamole-common-js (subprotocol,
// ping, sync acks) and keeps its own canvas by applying size/img/copy, so tests can compare what a viewer
// sees with the server's framebuffer.
import { rmSync } from 'node:fs';
import { WebSocket } from 'ws';
import { loadDesktopConfig, type DesktopConfig } from '../../server/config/index.ts';
import { Containment } from '../../server/desktop/contain/index.ts';
import { createDesktops, type LocalDesktops } from '../../server/desktop/place/local-desktops.ts';
import { decodeOwnPng } from '../../server/desktop/rfb/png.ts';
import { encode, GuacParser, type Instruction } from '../../server/desktop/view/codec.ts';
import { HomeImages } from '../../server/desktop/contain/home-image.ts';
import { XvncProvider, type XvncOptions } from '../../server/desktop/start/xvnc.ts';
import { testEnv } from './helpers.ts';

type Stream = { x: number; y: number; mask: number; chunks: string[]; kind: 'img' | 'clipboard' | 'audio'; mimetype?: string };

export class GuacTestClient {
  readonly log: Instruction[] = [];
  width = 0;
  height = 0;
  canvas = Buffer.alloc(0);
  uuid: string | null = null;
  frames = 0;
  bytes = 0;
  clipboard: string[] = [];
  /** PCM received on audio streams, in order, and the streams' mimetypes. */
  audio: Buffer[] = [];
  audioTypes: string[] = [];
  closed: { code: number; reason: string } | null = null;
  /** Reply to sync (the flow-control ack); tests turn it off to play a slow viewer. */
  autoAck = true;
  /** Times (ms, performance.now) at which each frame's sync arrived and was applied. */
  syncTimes: number[] = [];
  /** Time spent decoding PNGs in JS here (a browser decodes natively): benchmarks report it apart. */
  decodeMs = 0;
  private parser = new GuacParser({ maxBuffer: 1 << 28 });
  private streams = new Map<string, Stream>();
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.onMessage(data.toString()));
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static async connect(url: string): Promise<GuacTestClient> {
    const ws = new WebSocket(url + '?', 'guacamole');
    const client = new GuacTestClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    return client;
  }

  get protocol(): string {
    return this.ws.protocol;
  }

  send(opcode: string, ...args: (string | number)[]): void {
    this.ws.send(encode(opcode, ...args));
  }

  /** Sends raw text, for malformed-input tests. */
  sendRaw(text: string): void {
    this.ws.send(text);
  }

  private onMessage(text: string): void {
    this.bytes += Buffer.byteLength(text);
    for (const ins of this.parser.feed(text)) {
      this.log.push(ins);
      this.apply(ins);
    }
    this.wake();
  }

  private apply({ opcode, args }: Instruction): void {
    switch (opcode) {
      case '':
        if (this.uuid === null && args.length === 1) this.uuid = args[0];
        return;
      case 'size':
        if (args[0] === '0') {
          this.width = Number(args[1]);
          this.height = Number(args[2]);
          this.canvas = Buffer.alloc(this.width * this.height * 4);
        }
        return;
      case 'img':
        this.streams.set(args[0], { kind: 'img', mask: Number(args[1]), mimetype: args[3], x: Number(args[4]), y: Number(args[5]), chunks: [] });
        return;
      case 'clipboard':
        this.streams.set(args[0], { kind: 'clipboard', mask: 0, x: 0, y: 0, chunks: [] });
        return;
      case 'audio':
        // Like guacamole-common-js with a player for the type: acknowledge, then play every blob.
        this.streams.set(args[0], { kind: 'audio', mask: 0, x: 0, y: 0, chunks: [] });
        this.audioTypes.push(args[1]);
        this.send('ack', args[0], 'OK', 0);
        return;
      case 'blob': {
        const s = this.streams.get(args[0]);
        if (s?.kind === 'audio') this.audio.push(Buffer.from(args[1], 'base64'));
        else s?.chunks.push(args[1]);
        return;
      }
      case 'end': {
        const s = this.streams.get(args[0]);
        this.streams.delete(args[0]);
        if (!s) return;
        const bytes = Buffer.concat(s.chunks.map((c) => Buffer.from(c, 'base64')));
        if (s.kind === 'clipboard') this.clipboard.push(bytes.toString('utf8'));
        else this.paint(s, bytes);
        return;
      }
      case 'copy': {
        const [, sx, sy, w, h, , , dx, dy] = args.map(Number);
        const tmp = Buffer.alloc(w * h * 4);
        for (let row = 0; row < h; row++) this.canvas.copy(tmp, row * w * 4, ((sy + row) * this.width + sx) * 4, ((sy + row) * this.width + sx + w) * 4);
        for (let row = 0; row < h; row++) tmp.copy(this.canvas, ((dy + row) * this.width + dx) * 4, row * w * 4, (row + 1) * w * 4);
        return;
      }
      case 'sync':
        this.frames++;
        this.syncTimes.push(performance.now());
        if (this.autoAck) this.send('sync', args[0]);
        return;
    }
  }

  private paint(s: Stream, bytes: Buffer): void {
    const t0 = performance.now();
    const img = decodeImage(s.mimetype ?? '', bytes);
    this.decodeMs += performance.now() - t0;
    for (let row = 0; row < img.height; row++) {
      img.data.copy(this.canvas, ((s.y + row) * this.width + s.x) * 4, row * img.width * 4, (row + 1) * img.width * 4);
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `test` holds (checked after every message), rejects after `ms`. */
  async until(test: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (closed: ${JSON.stringify(this.closed)})`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  opcodes(): string[] {
    return this.log.map((i) => i.opcode);
  }

  close(): void {
    this.ws.close(1000);
  }
}

/** Count of pixels that differ between two RGBA buffers. */
export function diffPixels(a: Buffer, b: Buffer): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
  return n + Math.abs(a.length - b.length) / 4;
}

/** This test process's desktop settings (its own agent uid range, its PATH), with `env` on top. */
export function testDesktopConfig(env: NodeJS.ProcessEnv = {}): DesktopConfig {
  return loadDesktopConfig(testEnv(env));
}

/** The uid of this test process's agent n is AGENT_UID_BASE + n (run.mjs gives each process its range). */
export const AGENT_UID_BASE = testDesktopConfig().uidBase;

/** Desktops of this test process: its uid range and PATH, the given settings and environment on top. */
export function testDesktops(options: Parameters<typeof createDesktops>[0]): LocalDesktops {
  return createDesktops({ ...options, env: testEnv(options.env) });
}

/** Removes a test's data directory, unmounting the home images its desktops mounted there first. */
export function removeDataDir(dir: string): void {
  HomeImages.unmountUnder(dir);
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

/** An Xvnc provider with this process's uid range, isolated when the process runs as root (or as told). */
export function testXvnc(options: Omit<XvncOptions, 'containment'> & { isolate?: boolean; env?: NodeJS.ProcessEnv }): XvncProvider {
  const { isolate, env, ...rest } = options;
  const containment = new Containment({ dataDir: options.dataDir, log: options.log, config: testDesktopConfig(env), isolate });
  return new XvncProvider({ ...rest, containment });
}

/** The pixels of an `img` stream: a PNG (decodeOwnPng reads what the gateway writes) or raw RGB rows. */
function decodeImage(mimetype: string, bytes: Buffer): { width: number; height: number; data: Buffer } {
  const raw = /^image\/x-raw-rgb;width=(\d+)$/.exec(mimetype);
  if (!raw) return decodeOwnPng(bytes);
  const width = Number(raw[1]);
  const height = bytes.length / 3 / width;
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0, o = 0; i < bytes.length; i += 3, o += 4) {
    data[o] = bytes[i];
    data[o + 1] = bytes[i + 1];
    data[o + 2] = bytes[i + 2];
    data[o + 3] = 255;
  }
  return { width, height, data };
}
