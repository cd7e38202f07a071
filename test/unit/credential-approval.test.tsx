import { byRole, cleanup, click, FakeApi, getRole, json, renderScreen, settle, USER, waitFor } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fakeResourceEnvironment } from './helpers/fake-clock.ts';
import { BROWSER_ENVIRONMENT, configureEnvironment } from '../../src/lib/environment.ts';
import type { CredentialApproval, Thread } from '../../src/lib/types.ts';
import { MessageList } from '../../src/screens/agent/conversation/message-list.tsx';
import { CredentialApprovalCard } from '../../src/screens/agent/supervision/credential-approval.tsx';

let fake = fakeResourceEnvironment();

function approval(extra: Partial<CredentialApproval> = {}): CredentialApproval {
  const at = fake.clock.now;
  return {
    id: 5, credential: 'GitHub', agent_id: 7, field: 'password', target: 'https://github.com',
    asked_at: new Date(at).toISOString(), expires_at: new Date(at + 9 * 60_000 + 5_000).toISOString(), ...extra,
  };
}

const PNG = () => new Response(new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), { headers: { 'Content-Type': 'image/png' } });

function approvalApi(answer: (body: unknown) => Response | object = (b) => ({ state: (b as { approve: boolean }).approve ? 'approved' : 'denied' })) {
  return new FakeApi(USER)
    .on('GET /api/agents/7', () => ({ id: 7, name: 'Alice', threads: [] }))
    .on('GET /api/credential_approvals/5/screenshot', PNG)
    .on('POST /api/credential_approvals/5', (c) => answer(c.body));
}

const cardRegion = () => document.querySelector('section.credential-approval') as HTMLElement;
const button = (name: 'Approve' | 'Deny') => getRole('button', name) as HTMLButtonElement;
const posted = (api: FakeApi) => api.apiCalls().filter((c) => c.method === 'POST').map((c) => c.body);

const approvals = suite('credential approval card');
approvals.before.each(() => {
  fake = fakeResourceEnvironment();
  configureEnvironment(fake.env);
});
approvals.after.each(async () => {
  await cleanup();
  configureEnvironment(BROWSER_ENVIRONMENT);
});

approvals('asks who wants to type which value of which credential where, with the screenshot and the time left', async () => {
  await renderScreen(approvalApi(), <CredentialApprovalCard approval={approval()} />);
  const region = cardRegion();
  assert.is(region.getAttribute('role'), null, 'an inline card, not an alertdialog');
  assert.is(document.getElementById(region.getAttribute('aria-labelledby')!)!.textContent, 'Approve a sign-in?');
  assert.match(region.textContent!, 'Alice wants to type the password of GitHub into https://github.com.');
  assert.match(region.textContent!, '9:05 left to answer');
  await waitFor(() => region.querySelector('img')?.getAttribute('src')?.startsWith('blob:') ?? false, 'the screenshot');
  assert.is(region.querySelector('img')!.getAttribute('alt'), 'The screen the agent saw when it asked');

  // One tick a second, each re-render scheduling the next.
  for (let s = 0; s < 5; s++) await fake.tick(1_000);
  assert.match(region.textContent!, '9:00 left to answer');
  await fake.tick(10 * 60_000);
  await fake.tick(1_000);
  assert.match(region.textContent!, 'counts as denied');
  assert.is(fake.clock.pending, 0, 'the countdown stops once the time is up');
});

approvals("says 'The agent' when the agent's name is not known", async () => {
  const api = approvalApi().on('GET /api/agents/7', () => json({ detail: 'Agent not found' }, 404));
  await renderScreen(api, <CredentialApprovalCard approval={approval({ field: 'totp' })} />);
  assert.match(cardRegion().textContent!, 'The agent wants to type a TOTP code of GitHub into https://github.com.');
});

approvals('Approve posts {approve: true}, then the buttons are off and the card says Approved', async () => {
  const api = approvalApi();
  await renderScreen(api, <CredentialApprovalCard approval={approval()} />);
  const asked = api.apiCalls().filter((c) => c.path === '/api/agents/7').length;
  await click(button('Approve'));
  await settle();
  assert.equal(posted(api), [{ approve: true }]);
  assert.ok(button('Approve').disabled && button('Deny').disabled);
  assert.is(getRole('status').textContent, 'Approved');
  assert.ok(api.apiCalls().filter((c) => c.path === '/api/agents/7').length > asked, 'the thread is fetched again at once');
});

approvals('Deny posts {approve: false} and the card says Denied', async () => {
  const api = approvalApi();
  await renderScreen(api, <CredentialApprovalCard approval={approval()} />);
  await click(button('Deny'));
  await settle();
  assert.equal(posted(api), [{ approve: false }]);
  assert.is(getRole('status').textContent, 'Denied');
  assert.ok(button('Approve').disabled);
});

approvals("a 409 shows the server's detail and leaves nothing to press", async () => {
  const api = approvalApi(() => json({ detail: 'This request was already answered' }, 409));
  await renderScreen(api, <CredentialApprovalCard approval={approval()} />);
  await click(button('Approve'));
  await settle();
  assert.is(getRole('alert').textContent, 'This request was already answered');
  assert.ok(button('Approve').disabled && button('Deny').disabled);
});

approvals('another failure shows its detail and the buttons stay on for another try', async () => {
  const api = approvalApi(() => json({ detail: 'Server busy' }, 503));
  await renderScreen(api, <CredentialApprovalCard approval={approval()} />);
  await click(button('Deny'));
  await settle();
  assert.is(getRole('alert').textContent, 'Server busy');
  assert.not.ok(button('Deny').disabled);
});

const THREAD: Thread = {
  id: 3, agent_id: 7, name: 'Sign in', description: '', thread_running: true, error_message: '', schedule_sequence: null,
  approval_required: false, target_run_state: null, target_sequence: null, updated_at: '2026-03-01T00:00:00Z',
};

approvals('the message list shows the card while the thread has a credential_approval, and not otherwise', async () => {
  await renderScreen(approvalApi(), <MessageList thread={{ ...THREAD, credential_approval: approval() }} steps={[]} isLoading={false} thinking={false} />);
  assert.ok(cardRegion());
  assert.is(byRole('button', 'Approve').length, 1);
  await cleanup();
  configureEnvironment(fake.env);
  await renderScreen(approvalApi(), <MessageList thread={{ ...THREAD, credential_approval: null }} steps={[]} isLoading={false} thinking={false} />);
  assert.is(cardRegion(), null);
});

approvals.run();
