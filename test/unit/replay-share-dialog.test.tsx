import {
  byRole, cleanup, click, FakeApi, getRole, json, renderScreen, text, USER, waitFor, type Call,
} from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act } from 'react';
import type { ReplayShare } from '../../src/lib/replay-api.ts';
import { DEFAULT_EXPIRY, ShareDialog } from '../../src/screens/replay/share-dialog.tsx';

/** The share routes of run 17 over a list of live links; the server's token is made up here. */
function shareApi(initial: ReplayShare[] = []) {
  const state = { shares: initial.slice(), nextId: 40, failCreate: false };
  const api = new FakeApi(USER)
    .on('GET /api/runs/17/replay/shares', () => state.shares)
    .on('POST /api/runs/17/replay/share', (call: Call) => {
      if (state.failCreate) return json({ detail: 'expires_in_s must be between 3600 and 2592000' }, 422);
      const { expires_in_s } = call.body as { expires_in_s: number };
      const share = {
        id: state.nextId++, created_at: '2025-03-04T10:00:00Z', created_by: 'user@example.test',
        expires_at: new Date(Date.parse('2025-03-04T10:00:00Z') + expires_in_s * 1000).toISOString(),
      };
      state.shares.push(share);
      return { id: share.id, url: `http://localhost/replay/shared/token-${share.id}`, expires_at: share.expires_at };
    });
  for (let id = 1; id < 60; id++) {
    api.on(`DELETE /api/replay-shares/${id}`, () => {
      state.shares = state.shares.filter((s) => s.id !== id);
      return new Response(null, { status: 204 });
    });
  }
  return { api, state };
}

let closed = 0;
async function open(initial: ReplayShare[] = []) {
  const server = shareApi(initial);
  await renderScreen(server.api, <ShareDialog runId={17} onClose={() => closed++} />);
  await waitFor(() => !text().includes('Loading…'), 'the live links');
  return server;
}

const radio = (label: string) =>
  [...document.querySelectorAll<HTMLInputElement>('input[type="radio"]')].find((r) => r.parentElement!.textContent === label)!;
const posts = (api: FakeApi) => api.calls.filter((c) => c.method === 'POST' && c.path === '/api/runs/17/replay/share').map((c) => c.body);

const dialog = suite('replay: share dialog');
dialog.before.each(() => {
  closed = 0;
});
dialog.after.each(cleanup);

dialog('offers 1 hour to 30 days, 7 days chosen; Create posts the choice and shows the link with Copy', async () => {
  const { api } = await open();
  assert.is(getRole('dialog').getAttribute('aria-labelledby') !== null, true);
  assert.ok(text().includes('Share replay'));
  assert.equal([...document.querySelectorAll('.share-expiry-choice')].map((l) => l.textContent), ['1 hour', '1 day', '7 days', '30 days']);
  assert.ok(radio('7 days').checked);
  assert.is(Number(radio('7 days').value), DEFAULT_EXPIRY);
  assert.ok(text().includes('No live links.'));

  await click(getRole('button', 'Create link'));
  await waitFor(() => !!document.querySelector('.share-url input'), 'the link');
  assert.equal(posts(api), [{ expires_in_s: 604_800 }]);
  assert.is(document.querySelector<HTMLInputElement>('.share-url input')!.value, 'http://localhost/replay/shared/token-40');

  const copied: string[] = [];
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void copied.push(t) } });
  await click(getRole('button', 'Copy'));
  assert.equal(copied, ['http://localhost/replay/shared/token-40']);
  assert.is(document.querySelector('.share-copied')!.textContent, 'Copied.');
  // The new link is listed among the live ones.
  await waitFor(() => byRole('button', /^Revoke/).length === 1, 'the listed link');
  assert.ok(document.querySelector('.share-list')!.textContent!.includes('by user@example.test'));
});

dialog('another expiry is sent as chosen', async () => {
  const { api } = await open();
  await act(async () => radio('1 hour').click());
  await click(getRole('button', 'Create link'));
  await act(async () => radio('30 days').click());
  await click(getRole('button', 'Create link'));
  await waitFor(() => posts(api).length === 2, 'two links');
  assert.equal(posts(api), [{ expires_in_s: 3_600 }, { expires_in_s: 2_592_000 }]);
});

dialog('lists the live links, and Revoke deletes one and lists the rest', async () => {
  const { api } = await open([
    { id: 7, created_at: '2025-03-01T09:00:00Z', expires_at: '2025-03-08T09:00:00Z', created_by: 'user@example.test' },
    { id: 8, created_at: '2025-03-02T09:00:00Z', expires_at: '2025-03-03T09:00:00Z', created_by: 'admin@example.test' },
  ]);
  assert.is(byRole('button', /^Revoke/).length, 2);
  await click(byRole('button', /^Revoke/)[0]);
  await waitFor(() => byRole('button', /^Revoke/).length === 1, 'one left');
  assert.ok(api.calls.some((c) => c.method === 'DELETE' && c.path === '/api/replay-shares/7'));
  assert.ok(document.querySelector('.share-list')!.textContent!.includes('by admin@example.test'));
});

dialog('a refused link says why; Close closes', async () => {
  const { state } = await open();
  state.failCreate = true;
  await click(getRole('button', 'Create link'));
  await waitFor(() => byRole('alert').length === 1, 'the error');
  assert.is(getRole('alert').textContent, 'expires_in_s must be between 3600 and 2592000');
  await click(byRole('button', 'Close').find((b) => b.textContent === 'Close')!);
  assert.is(closed, 1);
});

dialog.run();
