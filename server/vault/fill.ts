// The agent's fill_credential (issue 45): check where the keys would go, ask the owner first when the grant says
// so, then type the value through the desktop's RFB input (never the clipboard, never a program on the desktop)
// and check that the focus stayed put. The model learns what happened, never a value; every fill is recorded in
// the credential's history and the audit trail, by name.
import type { Db } from '../db/db.ts';
import type { Desktop } from '../desktop/index.ts';
import type { Bus } from '../realtime/bus.ts';
import { record } from '../audit/audit.ts';
import { approvedLately, askApproval, awaitDecision, APPROVAL_MS } from './approvals.ts';
import { sealLabel, type SealedField } from './credentials.ts';
import { recordFill } from './fills.ts';
import { grantedCredential, type SealedCredential } from './grants.ts';
import { parseTotp, totpCode } from './totp.ts';
import type { VaultBox } from './vault-box.ts';
import { placeFor, release, stillThere, type Place, type Want } from './verify.ts';

export const FILL_FIELDS = ['username', 'password', 'totp', 'sign_in'] as const;
export type FillField = (typeof FILL_FIELDS)[number];

export type FillDesktop = Pick<Desktop, 'typeText' | 'key' | 'screenshot' | 'settle' | 'focusedField' | 'focusedWindow'>;
export type FillDeps = {
  db: Db; bus: Bus; box: VaultBox;
  /** Tells the thread's person something (a warning in the chat). */
  tell: (agentId: number, threadId: number, text: string) => Promise<void>;
  approvalMs?: number;
};
export type FillRequest = { agentId: number; threadId: number; name: string; field: string; desktop: FillDesktop | null; signal: AbortSignal };

/** The fill did not happen (no key was sent): the message is for the model. */
export class FillRefused extends Error {
  override name = 'FillRefused';
}

const TAB = 0xff09;
const RETURN = 0xff0d;
const NEXT_FIELD_MS = 1000;

export async function fillCredential(deps: FillDeps, req: FillRequest): Promise<string> {
  const field = FILL_FIELDS.find((f) => f === req.field);
  if (!field) throw new FillRefused(`field must be one of ${FILL_FIELDS.join(', ')}`);
  const cred = await grantedCredential(deps.db, req.agentId, req.name);
  if (!cred) throw new FillRefused(`no credential named “${req.name}” is granted to you`);
  const history = (outcome: string, target: string) => note(deps, req, cred, field, target, outcome);
  const refuse = async (reason: string, target = ''): Promise<never> => {
    await history(`refused: ${reason}`, target);
    throw new FillRefused(`Refused: ${reason}. No keys were sent.`);
  };
  const lacking = needs(field).find((f) => !cred[`${f}_sealed`]);
  if (lacking) await refuse(`the credential has no ${lacking}`);
  const desktop = req.desktop;
  if (!desktop) return refuse('this agent has no desktop');
  const want: Want = field === 'password' ? 'password' : field === 'totp' ? 'code' : 'text';
  let place = await placeFor(desktop, cred.targets, want);
  if ('refused' in place) return refuse(place.refused, place.target);
  // One approval covers the fields of one sign-in (the username, the password, the code) on the same target.
  if (cred.ask_each_time && !(await approvedLately(deps.db, cred.id, req.threadId, place.target))) {
    await release(place);
    const screenshot = await desktop.screenshot().catch(() => null);
    const id = await askApproval(deps.db, deps.bus, {
      credential_id: cred.id, agent_id: req.agentId, thread_id: req.threadId, field, target: place.target, screenshot,
    }, deps.approvalMs ?? APPROVAL_MS);
    const state = await awaitDecision(deps.db, deps.bus, id, req.threadId, req.signal);
    if (state !== 'approved') {
      if (state === 'expired') {
        await record(deps.db, { action: 'credential.approval', target: { type: 'credential', id: cred.id }, actor: { type: 'system' }, background: true,
          detail: { name: cred.name, state: 'expired', agent_id: req.agentId, thread_id: req.threadId } });
      }
      await history(state === 'denied' ? 'denied' : 'denied: no answer within 10 minutes', place.target);
      throw new FillRefused(state === 'denied' ? 'The owner denied this fill. No keys were sent.'
        : 'The owner did not answer within 10 minutes, which counts as denied. No keys were sent.');
    }
    place = await placeFor(desktop, cred.targets, want); // the screen may have changed while the owner looked
    if ('refused' in place) return refuse(place.refused, place.target);
  }
  return type(deps, req, desktop, cred, field, place, history);
}

async function type(
  deps: FillDeps, req: FillRequest, desktop: FillDesktop, cred: SealedCredential, field: FillField, first: Place,
  history: (outcome: string, target: string) => Promise<void>,
): Promise<string> {
  const value = (f: SealedField) => deps.box.open(cred[`${f}_sealed`]!, sealLabel(cred.id, f)).plain;
  const places: Place[] = [first];
  let moved = false;
  try {
    if (field === 'sign_in') {
      moved = !(await typeInto(desktop, first, value('username')));
      if (!moved) {
        press(desktop, TAB);
        const next = await untilPlaced(desktop, cred.targets);
        if ('refused' in next) {
          await history(`refused after the username: ${next.refused}`, next.target);
          throw new FillRefused(`Typed the username, then refused: ${next.refused}. The password was not sent.`);
        }
        places.push(next);
        moved = !(await typeInto(desktop, next, value('password')));
        if (!moved) press(desktop, RETURN);
      }
    } else {
      const text = field === 'totp' ? totpCode(parseTotp(value('totp'))!) : value(field);
      moved = !(await typeInto(desktop, first, text));
    }
  } finally {
    for (const p of places) await release(p);
  }
  const unverified = first.kind === 'window';
  const outcome = moved ? 'possible leak: the focus moved' : unverified ? 'filled (field not verified)' : 'filled';
  await history(outcome, first.target);
  if (moved) {
    await deps.tell(req.agentId, req.threadId, `Possible leak: the focus moved while the agent typed the ${field} of “${cred.name}” `
      + `into ${first.target}. Change that ${field === 'totp' ? 'TOTP secret' : 'password'} if you do not know where the keys went.`);
    throw new FillRefused(`The focus moved while typing: the fill stopped and your user was told (possible leak).`);
  }
  const what = field === 'sign_in' ? 'the username, Tab, the password and Enter' : `the ${field}`;
  return `Typed ${what} of “${cred.name}” into ${first.target}${unverified ? ' (field not verified)' : ''}.`;
}

/** Types and waits until the keys reached the window; whether the focus is still where it was checked. */
async function typeInto(desktop: FillDesktop, place: Place, text: string): Promise<boolean> {
  await desktop.typeText(text);
  await desktop.settle?.(40, 250);
  return stillThere(desktop, place);
}

/** After Tab: the password field the focus moved to, once the browser tells so (or why not). */
async function untilPlaced(desktop: FillDesktop, targets: string[]) {
  const end = Date.now() + NEXT_FIELD_MS;
  for (;;) {
    const place = await placeFor(desktop, targets, 'password');
    if (!('refused' in place) || Date.now() >= end) return place;
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

function press(desktop: FillDesktop, keysym: number): void {
  desktop.key(keysym, true);
  desktop.key(keysym, false);
}

const needs = (field: FillField): SealedField[] => (field === 'sign_in' ? ['username', 'password'] : [field]);

async function note(deps: FillDeps, req: FillRequest, cred: SealedCredential, field: string, target: string, outcome: string): Promise<void> {
  await deps.db.tx(async (q) => {
    await recordFill(q, { credential_id: cred.id, agent_id: req.agentId, thread_id: req.threadId, field, target, outcome });
    const refused = outcome.startsWith('refused');
    await record(q, {
      action: refused ? 'credential.refuse' : 'credential.fill', target: { type: 'credential', id: cred.id },
      actor: { type: 'agent', id: req.agentId }, background: true,
      detail: { name: cred.name, field, target, agent_id: req.agentId, thread_id: req.threadId, ...(refused ? { reason: outcome.slice(9) } : { outcome }) },
    });
  });
}
