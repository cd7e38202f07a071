// How a run ends other than with an answer: failed (the thread shows why) or stopped on purpose.
// A stop travels as the reason of the run's AbortSignal.
import type { PauseReason } from '../threads/needs-help.ts';

/** A failure that ends the run; its message is shown to the user as the thread's error. */
export class RunFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RunFailure';
  }
}

/** The owner's test credits or monthly limit refused the run (audited as `billing.limit_stop`). */
export class SpendRefused extends RunFailure {
  constructor(message: string) {
    super(message);
    this.name = 'SpendRefused';
  }
}

/** The run paused to wait for a person: the agent asked for help, or the runaway guard tripped (issue 19). */
export class RunPaused extends Error {
  constructor(readonly question: string, readonly reason: PauseReason) {
    super(`Run paused (${reason}): ${question}`);
    this.name = 'RunPaused';
  }
}

export type StopReason = 'thread' | 'agent' | 'shutdown' | 'lost';

/** The run was stopped on purpose (abort reason). */
export class RunStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(`Run stopped (${reason})`);
    this.name = 'RunStopped';
  }
}

/** The RunStopped an aborted signal carries (an abort without one counts as the agent stopping). */
export function stopOf(signal: AbortSignal): RunStopped {
  return signal.reason instanceof RunStopped ? signal.reason : new RunStopped('agent');
}
