// The real server as `npm start` runs it (server/main.ts, in a process of its own) on a fresh data directory, for
// the tests of what a person at its terminal sees: its output, its exit, its files.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type MainProcess = {
  child: ChildProcess;
  dataDir: string;
  /** Everything it wrote so far, stdout and stderr together. */
  output: () => string;
  /** Its address once it says it listens; rejects with its output if it stops first. */
  listening: Promise<string>;
  exited: Promise<number | null>;
  /** Waits until its output matches (a deadline, not a sleep). */
  said: (pattern: RegExp, ms?: number) => Promise<void>;
  /** Ends it (if still running) and removes its data directory. */
  remove: () => Promise<void>;
};

/**
 * `group`: a process group of its own, as a shell gives `npm start` (a Ctrl+C is sent to the whole group).
 * `dataDir`: DATA_DIR somewhere in the fresh folder the test gets (which is removed afterwards).
 */
export function startMain(env: Record<string, string>, options: { group?: boolean; dataDir?: (made: string) => string } = {}): MainProcess {
  const made = mkdtempSync(join(tmpdir(), 'aw-main-'));
  const dataDir = options.dataDir?.(made) ?? made;
  const child = spawn(process.execPath, ['--import', './test/setup/register.mjs', 'server/main.ts'], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, STATIC_DIR: '', PORT: '0', SMTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'], detached: options.group ?? false,
  });
  let out = '';
  const waiters = new Set<() => void>();
  const take = (chunk: Buffer) => {
    out += chunk;
    for (const wake of waiters) wake();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const said = (pattern: RegExp, ms = 60_000) => new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!pattern.test(out)) return;
      waiters.delete(check);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`the server did not say ${pattern} within ${ms} ms:\n${out}`));
    }, ms);
    waiters.add(check);
    check();
  });
  const listening = Promise.race([
    said(/listening on (http:\/\/\S+)/).then(() => /listening on (http:\/\/\S+)/.exec(out)![1]),
    exited.then((code) => Promise.reject(new Error(`the server exited ${code}:\n${out}`))),
  ]);
  listening.catch(() => {});
  const remove = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(made, { recursive: true, force: true });
  };
  return { child, dataDir, output: () => out, listening, exited, said, remove };
}
