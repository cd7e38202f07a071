// Scans of /proc, read in a worker thread of their own. Reading a process's status or command line waits for
// that process's memory lock, which a process being killed holds while the kernel tears its memory down: at a
// desktop's stop, single reads of a dying Xvnc or Chromium took 5-10 ms, and on the event loop every one of
// them stalled every request (issue 48). The worker blocks instead; the server gets one message a scan.
import { Worker } from 'node:worker_threads';

/** Processes (never the server itself) whose real, effective or saved uid is `uid`, or with `arg` among their arguments. */
export type ScanQuery = { uid: number; among?: undefined } | { arg: string; among?: number[] };

// Run from a string, as the spawner is, so that it works from the bundle as from the sources.
const SCANNER = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { readdirSync, readFileSync } = require('node:fs');
const read = (path) => { try { return readFileSync(path, 'latin1'); } catch { return null; } }; // gone meanwhile
function owned(pid, uid) {
  const status = read('/proc/' + pid + '/status');
  // The kernel escapes newlines in the Name line, so a process cannot forge these lines.
  const uids = status && /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status);
  if (!uids || ![uids[1], uids[2], uids[3]].some((v) => Number(v) === uid)) return false;
  return !/^State:\s+Z/m.test(status); // a zombie is dead already; only its parent can reap it
}
const withArgument = (pid, arg) => (read('/proc/' + pid + '/cmdline') || '').split('\0').includes(arg);
parentPort.on('message', ({ id, uid, arg, among }) => {
  const pids = (among || readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number)).filter((pid) => pid !== workerData.server);
  parentPort.postMessage({ id, pids: pids.filter((pid) => (arg === undefined ? owned(pid, uid) : withArgument(pid, arg))) });
});
`;

let worker: Worker | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve: (pids: number[]) => void; reject: (err: Error) => void }>();

function scanner(): Worker {
  if (worker) return worker;
  const started = new Worker(SCANNER, { eval: true, workerData: { server: process.pid }, resourceLimits: { maxOldGenerationSizeMb: 16 } });
  started.on('message', ({ id, pids }: { id: number; pids: number[] }) => {
    waiting.get(id)?.resolve(pids);
    waiting.delete(id);
    if (!waiting.size) started.unref(); // idle, it keeps no process alive
  });
  const died = (err: Error) => {
    if (worker === started) worker = null; // the next scan starts another
    for (const [, w] of waiting) w.reject(err);
    waiting.clear();
  };
  started.on('error', died);
  started.on('exit', (code) => died(new Error(`the /proc scanner exited (${code})`)));
  return (worker = started);
}

export function scanProcesses(query: ScanQuery): Promise<number[]> {
  const id = nextId++;
  return new Promise<number[]>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    const thread = scanner();
    thread.ref(); // a scan under way keeps the process alive (a stop awaits it)
    thread.postMessage({ id, ...query });
  });
}
