// Fakes for the replay screen's tests: a replay as GET /api/runs/:id/replay answers it, a recording player that
// needs no canvas (it records the positions it was asked to show), and animation frames a test moves by hand.
import type { GrowingBlob } from '../../../src/lib/growing-blob.ts';
import { act } from 'react';
import type { MarkerDetail, Replay } from '../../../src/lib/replay-api.ts';
import type { Trace } from '../../../src/lib/traces-api.ts';
import type { CreatePlayer, PlayerEvents } from '../../../src/screens/replay/recording-player.ts';
import type { Frames } from '../../../src/screens/replay/use-playback.ts';

export const REPLAY: Replay = {
  run_id: 17, thread_id: 5, agent_id: 7, agent_name: 'Alice', thread_name: 'Write a note',
  started_at: '2025-03-04T10:00:00Z', ended_at: '2025-03-04T10:01:00Z', duration_ms: 60_000, outcome: 'done', cost: 0.0123,
  recording_url: '/api/runs/17/recording', bytes: 2048, recording_offset_ms: 2_000, recording_stopped: null,
  idle: [{ from_ms: 40_000, to_ms: 55_000 }], can_share: true, shared: null,
  markers: [
    { at_ms: 1_000, kind: 'message', ref_id: 3, label: 'open a terminal' },
    { at_ms: 5_000, kind: 'model_call', ref_id: 11, label: '1,200 in / 34 out' },
    { at_ms: 6_000, kind: 'action', ref_id: 12, label: 'type "ls"' },
    { at_ms: 20_000, kind: 'takeover', ref_id: 4, label: 'You took control' },
    { at_ms: 58_000, kind: 'error', ref_id: null, label: 'The run failed' },
  ],
};

export const TRACE: Trace = {
  id: 11, owner_id: 2, owner_email: 'user@example.test', created_at: '2025-03-04T10:00:05Z', agent_id: 7, thread_id: 5, run_id: 17,
  thread_name: 'Main: write a note', model: 'offline-planner', cache_read_tokens: 0, input_tokens: 1200, output_tokens: 34,
  estimated_cost: 0.01, latency: 0.5, parameters: { max_tokens: 1024 }, request: { messages: [{ role: 'user', content: 'open a terminal' }] },
  response: { content: [{ type: 'text', text: 'Opening a terminal.' }, { type: 'tool_use', name: 'computer', input: { action: 'type', text: 'ls' } }] },
};

export const DETAILS: MarkerDetail[] = [
  { ...REPLAY.markers[0], detail: { text: 'open a terminal, then type "ls"' } },
  { ...REPLAY.markers[1], detail: { trace: TRACE } },
  {
    ...REPLAY.markers[2],
    detail: {
      name: 'computer', input: { action: 'type', text: 'ls', coordinate: [200, 300] }, status: 'done', output: 'Typed 2 characters.', step_sequence: 4,
    },
  },
  { ...REPLAY.markers[3], detail: { text: 'Typed: ls ⏎' } },
  { ...REPLAY.markers[4], detail: { text: 'The desktop stopped answering.' } },
];

/** A player whose recording is `duration` ms long, parsed at once; `shown` lists every position asked for. */
export function fakePlayers(duration = 50_000) {
  const state = { shown: [] as number[], blobs: [] as (Blob | GrowingBlob)[], disposed: 0, events: null as PlayerEvents | null };
  const create: CreatePlayer = (blob, events) => {
    state.blobs.push(blob);
    state.events = events;
    const element = document.createElement('div');
    element.className = 'fake-display';
    queueMicrotask(() => {
      events.onProgress?.(duration);
      events.onBusy?.(true);
      events.onBusy?.(false);
      events.onLoad?.();
    });
    return {
      element,
      fit: () => {},
      display: () => null,
      duration: () => duration,
      show: (position) => void state.shown.push(position),
      settled: () => Promise.resolve(),
      stats: { count: 0, lastMs: 0, maxMs: 0, totalMs: 0 },
      dispose: () => void state.disposed++,
    };
  };
  return { create, state, last: () => state.shown[state.shown.length - 1] };
}

/** Animation frames that run only when the test says how much time passed. */
export function manualFrames() {
  let now = 0;
  let queue = new Map<number, (now: number) => void>();
  let id = 0;
  const frames: Frames = {
    request: (callback) => (queue.set(++id, callback), id),
    cancel: (handle) => void queue.delete(handle),
  };
  /** Runs frames every 50 ms until `ms` have passed. */
  async function tick(ms: number): Promise<void> {
    const end = now + ms;
    while (now < end) {
      now = Math.min(end, now + 50);
      const due = queue;
      queue = new Map();
      await act(async () => {
        for (const callback of due.values()) callback(now);
      });
    }
  }
  return { frames, tick, pending: () => queue.size };
}
