// The webhooks settings screen: the endpoint list (state, events, agent, the secret by its prefix only), the New endpoint
// form (what it sends, the secret shown once, a refusal's detail with nothing typed lost), on/off, Delete (asks first),
// and the deliveries log with Send test event and Redeliver. One suite: a second suite() in a file once broke another's.
import { act } from 'react';
import { byRole, cleanup, click, dialogs, FakeApi, getRole, json, renderScreen, settle, text, type, USER, waitFor } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bodies, dialog, errorOf, field } from './helpers/vault-fakes.ts';
import { ALICE_HOOK, DELIVERED, FAILED, OFF, ORDERS, SECRET, webhookApi } from './helpers/webhook-fakes.ts';
import { resolveRoute } from '../../src/lib/routes.ts';
import WebhooksScreen from '../../src/screens/settings/webhooks/webhooks-screen.tsx';
import { formatDateTime } from '../../src/ui/trace-format.ts';

const test = suite('webhooks screen');
test.after.each(async () => {
  Reflect.deleteProperty(navigator, 'clipboard'); // the stub of the secret's test, gone before the next test
  await cleanup();
});

const press = (name: string) => click(getRole('button', name));
const cards = () => [...document.querySelectorAll('ul[aria-label="Webhook endpoints"] > li')];
const card = (url: string) => cards().find((li) => li.querySelector('h3')?.textContent === url)!;
/** A card's facts as label → text. */
const facts = (url: string) => {
  const terms = [...card(url).querySelectorAll('dt')];
  return Object.fromEntries(terms.map((dt) => [dt.textContent, (dt.nextElementSibling as HTMLElement).textContent]));
};
/** The log's rows, the actions column left out. */
const logRows = (url: string) =>
  [...document.querySelector(`table[aria-label="Deliveries to ${url}"]`)!.querySelectorAll('tbody tr')]
    .map((tr) => [...tr.querySelectorAll('td')].slice(0, -1).map((td) => td.textContent));
const calls = (api: FakeApi, method: string) => api.apiCalls().filter((c) => c.method === method).map((c) => c.path);
const select = (label: string) => field(label) as unknown as HTMLSelectElement;

/** Picks an option the way React listens for it (the native value setter, then 'change'). */
async function choose(el: HTMLSelectElement, value: string): Promise<void> {
  await act(async () => {
    Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

test('lists each endpoint with its events, agent, state and secret prefix, never a secret', async () => {
  history.replaceState(null, '', '/settings/webhooks');
  await renderScreen(webhookApi().api, <WebhooksScreen />);
  assert.equal(cards().map((li) => li.querySelector('h3')!.textContent), [ORDERS.url, ALICE_HOOK.url, OFF.url]);
  assert.equal(facts(ORDERS.url), {
    Events: 'Run finishedRun failed', Agent: 'All agents', Status: 'Active', Secret: 'whsec_Or3…', Created: formatDateTime(ORDERS.created_at),
  });
  assert.is(facts(ALICE_HOOK.url).Agent, 'Alice');
  assert.is(facts(ALICE_HOOK.url).Status, `Failing since ${formatDateTime(ALICE_HOOK.failing_since)}`);
  assert.is(facts(OFF.url).Status, 'DisabledTurned off after 3 days of failed deliveries');
  assert.equal(byRole('button', /^(Enable|Disable) /).map((b) => b.getAttribute('aria-label')),
    [`Disable ${ORDERS.url}`, `Disable ${ALICE_HOOK.url}`, `Enable ${OFF.url}`]);
  for (const name of ['Deliveries of', 'Send test event to', 'Delete']) assert.is(byRole('button', new RegExp(`^${name} `)).length, 3);

  const nav = document.querySelector('nav[aria-label="Settings"]')!;
  const links = [...nav.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('aria-current')]);
  assert.equal(links.slice(-3), [['API tokens', null], ['Webhooks', 'page'], ['Notifications', null]]);
  assert.equal(resolveRoute('/settings/webhooks'), { name: 'settings-webhooks' });
});

test('says so while loading, on an error (with the detail) and when empty', async () => {
  await renderScreen(new FakeApi(USER).on('GET /api/webhooks', () => new Promise(() => {})), <WebhooksScreen />);
  assert.is(getRole('status').textContent, 'Loading endpoints...');
  await cleanup();
  await renderScreen(new FakeApi(USER).on('GET /api/webhooks', () => json({ detail: 'Webhooks are resting' }, 503)), <WebhooksScreen />);
  assert.is(getRole('alert').textContent, 'Error loading endpoints: Webhooks are resting');
  await cleanup();
  await renderScreen(webhookApi([]).api, <WebhooksScreen />);
  assert.match(text(), 'No endpoints yet');
  assert.is(cards().length, 0);
});

test('New endpoint POSTs the address, the ticked events in order and the agent, then shows the secret once', async () => {
  const { api } = webhookApi([ORDERS]);
  api.on('POST /api/webhooks', (c) => json({ ...ORDERS, id: 9, agent_name: 'Alice', ...(c.body as object), secret_prefix: 'whsec_Nw5', secret: SECRET }, 201));
  await renderScreen(api, <WebhooksScreen />);
  await press('New endpoint');
  assert.is(document.getElementById(dialog().getAttribute('aria-labelledby')!)!.textContent, 'New endpoint');
  assert.equal([...select('Agent').options].map((o) => o.textContent), ['All agents', 'Alice', 'Bob']);
  assert.equal([...dialog().querySelectorAll('fieldset input[type="checkbox"]')].map((box) => document.querySelector(`label[for="${box.id}"]`)!.textContent), [
    'Run started', 'Run finished', 'Run failed', 'Agent needs help', 'Run paused by the guard', 'Mail awaiting approval', 'Spend limit reached',
  ]);
  await type(field('URL'), ' https://example.com/hooks/new ');
  await click(field('Run failed'));
  await click(field('Run started'));
  await choose(select('Agent'), '7');
  await press('Create');
  await settle();
  assert.equal(bodies(api, 'POST'), [{ url: 'https://example.com/hooks/new', events: ['run.started', 'run.failed'], agent_id: 7 }]);

  assert.is(document.getElementById(dialog().getAttribute('aria-labelledby')!)!.textContent, 'Endpoint created');
  assert.is(field('Signing secret').value, SECRET);
  assert.ok(field('Signing secret').readOnly);
  assert.match(dialog().textContent!, 'Copy it now: it will not be shown again.');
  const copied: string[] = [];
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void copied.push(t) } });
  await press('Copy');
  assert.equal(copied, [SECRET]);
  assert.is(dialog().querySelector('[role="status"]')!.textContent, 'Copied');
  // The list has the new endpoint first, by its prefix only.
  assert.equal(facts('https://example.com/hooks/new').Secret, 'whsec_Nw5…');

  await press('Done');
  assert.is(byRole('dialog').length, 0);
  assert.not.ok(document.body.innerHTML.includes(SECRET));
  assert.equal(cards().map((li) => li.querySelector('h3')!.textContent), ['https://example.com/hooks/new', ORDERS.url]);
});

test('an empty address or no event is refused before sending', async () => {
  const { api } = webhookApi([ORDERS]);
  await renderScreen(api, <WebhooksScreen />);
  await press('New endpoint');
  await press('Create');
  assert.is(errorOf(field('URL')), 'Enter the address to send events to');
  assert.is(field('URL').getAttribute('aria-invalid'), 'true');
  assert.equal(byRole('alert').map((a) => a.textContent), ['Enter the address to send events to', 'Choose one or more events']);
  assert.equal(bodies(api, 'POST'), []);
});

test("a refusal's detail shows beside the field it names, or at the top, and nothing typed is lost", async () => {
  const { api } = webhookApi([ORDERS]);
  const private10 = 'url: 10.0.0.5 is a private address (WEBHOOK_ALLOW_PRIVATE=1 allows it)';
  api.on('POST /api/webhooks', () => json({ detail: private10 }, 422));
  await renderScreen(api, <WebhooksScreen />);
  await press('New endpoint');
  await type(field('URL'), 'http://10.0.0.5/hook');
  await click(field('Mail awaiting approval'));
  await choose(select('Agent'), '8');
  await press('Create');
  await settle();
  assert.equal(byRole('alert').map((a) => a.textContent), [private10]);
  assert.is(errorOf(field('URL')), private10);
  assert.is(field('URL').getAttribute('aria-invalid'), 'true');
  const kept = () => [field('URL').value, field('Mail awaiting approval').checked, field('Run started').checked, select('Agent').value];
  assert.equal(kept(), ['http://10.0.0.5/hook', true, false, '8']);

  api.on('POST /api/webhooks', () => json({ detail: [{ loc: ['body', 'agent_id'], msg: 'agent_id: no such agent' }] }, 422));
  await press('Create');
  await settle();
  assert.is(errorOf(select('Agent')), 'agent_id: no such agent');
  assert.is(field('URL').getAttribute('aria-invalid'), null, 'the earlier refusal is gone');

  api.on('POST /api/webhooks', () => json({ detail: 'Forbidden: a read token may not make endpoints' }, 403));
  await press('Create');
  await settle();
  assert.equal(byRole('alert').map((a) => a.textContent), ['Forbidden: a read token may not make endpoints']);
  assert.equal(kept(), ['http://10.0.0.5/hook', true, false, '8']);
  assert.is(byRole('dialog').length, 1);
});

test('Disable and Enable PATCH enabled, and the card shows the server\'s answer', async () => {
  const { api } = webhookApi();
  await renderScreen(api, <WebhooksScreen />);
  await press(`Disable ${ORDERS.url}`);
  await settle();
  await press(`Enable ${OFF.url}`);
  await settle();
  assert.equal(api.apiCalls().filter((c) => c.method === 'PATCH').map((c) => [c.path, c.body]), [
    ['/api/webhooks/3', { enabled: false }],
    ['/api/webhooks/1', { enabled: true }],
  ]);
  assert.is(facts(ORDERS.url).Status, 'Disabled');
  assert.is(facts(OFF.url).Status, 'Active');
  assert.ok(getRole('button', `Enable ${ORDERS.url}`));
});

test('Delete asks first, then DELETEs the endpoint, which leaves the list', async () => {
  const { api } = webhookApi();
  await renderScreen(api, <WebhooksScreen />);
  dialogs.answer = false;
  await press(`Delete ${ALICE_HOOK.url}`);
  assert.equal(dialogs.confirms, [`Delete the endpoint ${ALICE_HOOK.url}? It stops receiving events at once.`]);
  assert.equal(calls(api, 'DELETE'), []);
  dialogs.answer = true;
  await press(`Delete ${ALICE_HOOK.url}`);
  await settle();
  assert.equal(calls(api, 'DELETE'), ['/api/webhooks/2']);
  assert.equal(cards().map((li) => li.querySelector('h3')!.textContent), [ORDERS.url, OFF.url]);
});

test('the deliveries log shows each attempt; Send test event and Redeliver add a delivery to it', async () => {
  const { api } = webhookApi();
  await renderScreen(api, <WebhooksScreen />);
  const toggle = getRole('button', `Deliveries of ${ORDERS.url}`);
  assert.is(toggle.getAttribute('aria-expanded'), 'false');
  await click(toggle);
  await settle();
  assert.is(toggle.getAttribute('aria-expanded'), 'true');
  assert.ok(document.getElementById(toggle.getAttribute('aria-controls')!));
  const read = api.apiCalls().find((c) => c.path === '/api/webhooks/3/deliveries')!;
  assert.is(read.search, '?limit=50&offset=0');
  assert.equal(logRows(ORDERS.url), [
    ['run.finished', 'Delivered', '200', '84 ms', '1', formatDateTime(DELIVERED.created_at), ''],
    ['run.failed', 'Failed', '500', '1210 ms', '5', formatDateTime(FAILED.created_at), 'The receiver answered 500'],
  ]);

  await press(`Send test event to ${ORDERS.url}`);
  await waitFor(() => logRows(ORDERS.url).length === 3, 'the test delivery in the log');
  assert.equal(calls(api, 'POST'), ['/api/webhooks/3/test']);
  const [type0, status0, ...rest0] = logRows(ORDERS.url)[0];
  assert.equal([type0, rest0.slice(0, 3)], ['webhook.test', ['None', 'None', '0']]);
  assert.match(status0!, /^Pending next try \d\d:\d\d/);

  await press(`Redeliver run.failed of ${formatDateTime(FAILED.created_at)}`);
  await waitFor(() => logRows(ORDERS.url).length === 4, 'the redelivery in the log');
  assert.equal(calls(api, 'POST'), ['/api/webhooks/3/test', '/api/webhooks/deliveries/10/redeliver']);
  assert.equal(logRows(ORDERS.url).map((r) => r[0]), ['run.failed', 'webhook.test', 'run.finished', 'run.failed']);
});

test('Send test event opens a closed log; a refusal shows on the card', async () => {
  const { api } = webhookApi();
  api.on('POST /api/webhooks/2/test', () => json({ detail: 'Webhook not found' }, 404));
  await renderScreen(api, <WebhooksScreen />);
  await press(`Send test event to ${ORDERS.url}`);
  await waitFor(() => document.querySelector(`table[aria-label="Deliveries to ${ORDERS.url}"]`) !== null, 'the log open');
  assert.is(logRows(ORDERS.url)[0][0], 'webhook.test');
  assert.is(getRole('button', `Deliveries of ${ORDERS.url}`).getAttribute('aria-expanded'), 'true');

  await press(`Send test event to ${ALICE_HOOK.url}`);
  await settle();
  assert.equal(card(ALICE_HOOK.url).querySelector('[role="alert"]')?.textContent, 'Webhook not found');
  assert.is(getRole('button', `Deliveries of ${ALICE_HOOK.url}`).getAttribute('aria-expanded'), 'false');
});

test.run();
