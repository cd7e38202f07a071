// Ending a desktop's programs: each asked to end as at a logout (the program inside its sandbox, not the wrapper),
// then ended with its wrapper when it does not; a program whose sandbox is still being made is ended at once.
import type { Child } from '../../system/spawner/index.ts';
import type { Sandbox } from '../contain/sandbox.ts';

/** Sends `sig` to a child that still runs. */
export function signal(child: Child, sig: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  try {
    child.kill(sig);
  } catch {}
}

/** How long a desktop's program has to end on its own (a browser saves its session) before it is ended. */
const PROGRAM_GRACE_MS = 5000;

/**
 * Asks a program of the desktop to end (a SIGTERM to the program itself, not to its sandbox's wrapper) and waits
 * for it; one that is still there after PROGRAM_GRACE_MS is ended with its wrapper.
 */
export async function endProgram(sandbox: Sandbox, child: Child): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const program = sandbox.programOf(child);
  // Not started yet (its sandbox still being made): nothing to save, so no grace.
  if (!program.length) return stopProcess(child);
  const exited = new Promise<boolean>((resolve) => child.once('exit', () => resolve(true)));
  for (const pid of program) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {} // gone meanwhile
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PROGRAM_GRACE_MS)));
  const ended = await Promise.race([exited, late]);
  clearTimeout(timer);
  if (!ended) await stopProcess(child);
}

/** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
export async function stopProcess(child: Child): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signal(child, 'SIGTERM');
  const timer = setTimeout(() => signal(child, 'SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}
