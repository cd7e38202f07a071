// Test doubles for the runner: a fake desktop (the Desktop interface, recording actions), a
// PerformAction over it, scripted model providers, and a runner swapped in for the server's own.
import { EventEmitter } from 'node:events';
import { deflateSync } from 'node:zlib';
import type { ComputerAction, Desktop, Desktops, PerformAction } from '../../server/desktop/index.ts';
import type { Framebuffer } from '../../server/desktop/types.ts';
import type { AssistantBlock, ModelProvider, ModelRequest, ModelResponse } from '../../server/models/types.ts';
import { Runner, type RunnerOptions } from '../../server/runner/runner.ts';
import { abortableSleep } from '../../server/models/http.ts';
import { testServer } from './helpers.ts';
import { TOPICS } from '../../server/realtime/topics.ts';

/** A real (grey) PNG of the given size. */
export function png(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0)),
  ]);
}

const SHOT = png(1280, 800);

export class FakeDesktop extends EventEmitter implements Desktop {
  readonly width = 1280;
  readonly height = 800;
  typed = '';
  actions: ComputerAction[] = [];
  constructor(readonly agentId: number) {
    super();
  }
  framebuffer(): Framebuffer {
    return { width: this.width, height: this.height, data: Buffer.alloc(this.width * this.height * 4, 255) };
  }
  pointer(): void {}
  key(_keysym: number, _down: boolean): void {}
  async typeText(text: string): Promise<void> {
    this.typed += text;
  }
  async setClipboard(): Promise<void> {}
  async screenshot(): Promise<Buffer> {
    return SHOT;
  }
  async putFile(_source: string, name: string): Promise<string> {
    return `/home/agent/Desktop/${name}`;
  }
}

export function fakeDesktops(): Desktops & { all: Map<number, FakeDesktop> } {
  const all = new Map<number, FakeDesktop>();
  return {
    all,
    status: () => ({ available: true, provider: 'vnc' }),
    async acquire(agentId) {
      if (!all.has(agentId)) all.set(agentId, new FakeDesktop(agentId));
      return all.get(agentId)!;
    },
    running: (agentId) => all.get(agentId) ?? null,
    async stopAll() {},
  };
}

/** Records the action, types text, waits for 'wait' (abortably), publishes the action event. */
export const fakePerform: PerformAction = async (desktop, action, { publish, signal }) => {
  const fake = desktop as FakeDesktop;
  fake.actions.push(action);
  fake.emit('action', action);
  if (action.action === 'type') await fake.typeText(action.text);
  if (action.action === 'wait') await abortableSleep(action.duration * 1000, signal);
  const at = 'coordinate' in action && action.coordinate ? action.coordinate : [0, 0];
  publish(TOPICS.agentActions(desktop.agentId), { kind: action.action, x: at[0] / desktop.width, y: at[1] / desktop.height, source: 'agent' });
  return { screenshot: await desktop.screenshot() };
};

type Turn = AssistantBlock[] | ((request: ModelRequest, signal?: AbortSignal) => Promise<AssistantBlock[]> | AssistantBlock[]);

/** A provider answering from a script, one turn per call (the last turn repeats); each call costs `cost` USD. */
export function scripted(turns: Turn[], name = 'scripted', cost = 0.001): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let i = 0;
  return {
    name, model: 'scripted-1', offline: false, requests,
    estimate: () => cost, // each call costs what it says, so the estimate is exact
    async complete(request, signal) {
      requests.push(request);
      const turn = turns[Math.min(i++, turns.length - 1)];
      const content = typeof turn === 'function' ? await turn(request, signal) : turn;
      const response: ModelResponse = {
        id: `msg_${i}`, model: 'scripted-1', role: 'assistant', content,
        stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
        usage: { input_tokens: 10, output_tokens: 5, cache_read_tokens: 2, cache_write_tokens: 0 },
      };
      return { response, request: { scripted: true }, parameters: { provider: name }, cost, latencyMs: 1 };
    },
  };
}

export const toolUse = (id: string, name: string, input: Record<string, unknown>): AssistantBlock => ({ type: 'tool_use', id, name, input });
export const text = (t: string): AssistantBlock => ({ type: 'text', text: t });

/** Stops the server's own runner and starts one with the given parts (fake desktops by default). */
export async function swapRunner(options: Partial<RunnerOptions> = {}): Promise<Runner & { desktops: ReturnType<typeof fakeDesktops> }> {
  const running = await testServer();
  await running.parts.runner?.stop();
  // Work left queued by earlier tests (a run paused by a stop) must not reach this runner.
  await running.parts.db.query(`UPDATE agents SET target_run_state = 'stop' WHERE target_run_state <> 'stop'`);
  const desktops = (options.desktops as ReturnType<typeof fakeDesktops>) ?? fakeDesktops();
  const runner = new Runner({
    db: running.parts.db, bus: running.parts.bus, log: { info: () => {}, error: (m) => process.env.TEST_VERBOSE && console.error(m) },
    provider: options.provider ?? running.parts.models!, desktops, performAction: fakePerform, pollMs: 50, ...options,
  }) as Runner & { desktops: ReturnType<typeof fakeDesktops> };
  runner.desktops = desktops;
  running.parts.runner = runner;
  await runner.start();
  return runner;
}

export async function waitFor<T>(check: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
