// The runaway guard (issue 19): a run pauses itself and asks its person for help, with the reason as the
// question, when one of these is crossed (each an agent setting; 0 turns it off):
// - repeat: the same action on the same spot N times in a row with the screen unchanged after each (default 5);
// - cost: the thread's model calls since the last human message cost more than the cap (default $2);
// - calls: more model calls than M since the last human message (default 200).
// Pure: the runner feeds it the calls' costs and the actions with a hash of the screen after each.
import { createHash } from 'node:crypto';
import type { GuardSettings } from './supervision.ts';
import type { PauseReason } from '../threads/needs-help.ts';

export type Trip = { reason: Exclude<PauseReason, 'asked'>; question: string };

const money = (usd: number) => `$${usd.toFixed(2)}`;

export class RunawayGuard {
  private calls: number;
  private cost: number;
  private lastAction: string | null = null;
  private lastScreen: string | null = null;
  private repeats = 0;
  private trip: Trip | null = null;

  /** `since`: the calls and cost (USD) of the thread since the last human message, before this run. */
  constructor(private settings: GuardSettings, since: { calls: number; cost: number } = { calls: 0, cost: 0 }) {
    this.calls = since.calls;
    this.cost = since.cost;
  }

  /** Before a model call: the rule it would cross, if any (the repeat rule trips after the action, see acted()). */
  beforeCall(): Trip | null {
    if (this.trip) return this.trip;
    const { max_calls, cost_cap_cents } = this.settings;
    if (max_calls > 0 && this.calls >= max_calls) {
      return (this.trip = {
        reason: 'calls',
        question: `I paused myself: I made ${this.calls} model calls since your last message, more than the ${max_calls} this agent may make `
          + 'without hearing from you. Should I go on? Answer here, or take control and show me.',
      });
    }
    if (cost_cap_cents > 0 && this.cost * 100 > cost_cap_cents) {
      return (this.trip = {
        reason: 'cost',
        question: `I paused myself: this thread cost ${money(this.cost)} since your last message, above the ${money(cost_cap_cents / 100)} cap `
          + 'of this agent. Should I go on? Answer here, or take control and show me.',
      });
    }
    return null;
  }

  /** A model call was made (its cost in USD). */
  called(costUsd: number): void {
    this.calls += 1;
    this.cost += costUsd;
  }

  /**
   * A computer action was performed; `screen` is the screenshot after it (none: the action cannot be compared).
   * Returns the trip when this made N identical actions in a row on an unchanged screen.
   */
  acted(input: Record<string, unknown>, screen: Buffer | string | null | undefined): Trip | null {
    if (this.trip) return this.trip;
    const key = actionKey(input);
    const hash = screen ? createHash('sha1').update(screen).digest('hex') : null;
    const same = hash !== null && key === this.lastAction && hash === this.lastScreen;
    this.repeats = same ? this.repeats + 1 : hash === null ? 0 : 1;
    this.lastAction = key;
    this.lastScreen = hash;
    const limit = this.settings.repeat_limit;
    if (limit > 0 && this.repeats >= limit) {
      return (this.trip = {
        reason: 'repeat',
        question: `I paused myself: I did the same thing (${describe(input)}) ${this.repeats} times in a row and the screen did not change. `
          + 'I seem to be stuck. What should I do? Answer here, or take control and show me.',
      });
    }
    return null;
  }
}

/** What makes two actions "the same action on the same spot": the action, where, and what it typed or pressed. */
export function actionKey(input: Record<string, unknown>): string {
  const { action, coordinate, start_coordinate, text, scroll_direction, scroll_amount } = input;
  return JSON.stringify([action, coordinate ?? null, start_coordinate ?? null, text ?? null, scroll_direction ?? null, scroll_amount ?? null]);
}

function describe(input: Record<string, unknown>): string {
  const at = Array.isArray(input.coordinate) ? ` at ${input.coordinate.join(',')}` : '';
  const what = typeof input.text === 'string' ? ` "${input.text.length > 30 ? input.text.slice(0, 29) + '…' : input.text}"` : '';
  return `${String(input.action ?? 'an action')}${what}${at}`;
}
