// The credential vault as the SPA tests meet it: two credentials (one with every value saved, one bare), two
// agents, and the fake API that lists them; plus queries for the vault's dialogs by visible label.
import { FakeApi, getRole, USER } from './screen-harness.tsx';
import type { Credential } from '../../../src/lib/types.ts';

const DAY = 86_400_000;
export const GITHUB: Credential = {
  id: 1, name: 'GitHub', username: 'ada', has_password: true, has_totp: true, targets: ['https://github.com', 'https://*.github.com'],
  notes: 'Work account', values_changed_at: new Date(Date.now() - 3 * DAY).toISOString(), created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z', grants: { agent_ids: [7], ask_each_time: true },
};
export const SHOP: Credential = {
  ...GITHUB, id: 2, name: 'Shop', username: 'ada@example.test', has_password: false, has_totp: false, targets: [], notes: '',
  grants: { agent_ids: [], ask_each_time: false },
};
export const AGENTS = [{ id: 7, name: 'Alice' }, { id: 8, name: 'Bob' }];

export function vaultApi(list: unknown = [GITHUB, SHOP]) {
  return new FakeApi(USER).on('GET /api/credentials', () => list).on('GET /api/agents/', () => AGENTS);
}

export const dialog = () => getRole('dialog');
/** The control a visible label names, inside the open dialog. */
export function field(label: string): HTMLInputElement & HTMLTextAreaElement {
  const found = [...dialog().querySelectorAll('label')].find((l) => l.textContent === label);
  if (!found) throw new Error(`no field ${label}`);
  return (document.getElementById(found.htmlFor) ?? found.querySelector('input')) as HTMLInputElement & HTMLTextAreaElement;
}
/** The error shown with a control: the element its aria-describedby names first. */
export const errorOf = (el: Element) => document.getElementById(el.getAttribute('aria-describedby')?.split(' ')[0] ?? '')?.textContent;
/** The bodies the API got for one method, sign-in traffic left out. */
export const bodies = (api: FakeApi, method: string) => api.apiCalls().filter((c) => c.method === method).map((c) => c.body);
