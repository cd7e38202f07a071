// The notifications settings screen (Web Push per device): allowing this device (the permission prompt, a subscription
// for the server's key, the POST with the chosen events and a label), its events saved on change, a test notification,
// turning it off, the other devices with Remove, and what it says when the browser cannot, the permission is denied
// or a step is refused. One suite: a second suite() in a file once broke another's.
import { byRole, cleanup, click, getRole, json, renderScreen, settle, text, waitFor } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ANDROID_UA, FakeSubscription, fakeBrowser, LAPTOP, PUBLIC_KEY, pushApi, TABLET } from './helpers/push-fakes.ts';
import { resolveRoute } from '../../src/lib/routes.ts';
import { base64UrlBytes, deviceLabel, UNSUPPORTED } from '../../src/lib/push-device.ts';
import NotificationsScreen from '../../src/screens/settings/notifications/notifications-screen.tsx';
import { NO_WORKER, TEST_SENT } from '../../src/screens/settings/notifications/use-push-device.ts';
import { BLOCKED } from '../../src/screens/settings/notifications/this-device.tsx';
import { formatDateTime } from '../../src/ui/trace-format.ts';

const test = suite('notifications screen');
test.after.each(cleanup);

const thisDevice = () => document.querySelector('section[aria-labelledby="push-this-device"]')!;
const press = (name: string) => click(getRole('button', name));
/** A checkbox by its label, inside this device's part. */
const box = (label: string) => {
  const found = [...thisDevice().querySelectorAll('label')].find((l) => l.textContent === label);
  return document.getElementById(found!.htmlFor) as HTMLInputElement;
};
const ticked = () => [...thisDevice().querySelectorAll<HTMLInputElement>('input[type="checkbox"]')].filter((b) => b.checked)
  .map((b) => document.querySelector(`label[for="${b.id}"]`)!.textContent);
const others = () => [...document.querySelectorAll('ul[aria-label="Other devices"] > li')].map((li) => li.querySelector('strong')!.textContent);
const calls = (api: ReturnType<typeof pushApi>['api'], method: string) =>
  api.apiCalls().filter((c) => c.method === method).map((c) => [c.path, c.body]);
/** This browser subscribed to the server's key as device `id`, which the server still lists. */
const subscribedAs = (id: number) => {
  const endpoint = 'https://fcm.googleapis.com/fcm/send/this-phone';
  return { subscription: new FakeSubscription(endpoint, base64UrlBytes(PUBLIC_KEY)), remembered: { endpoint, id }, permission: 'granted' as const };
};

test('Allow asks the permission, subscribes with the server\'s key and POSTs the subscription, the events and a label', async () => {
  const { api, state } = pushApi();
  const { env, seen } = fakeBrowser();
  await renderScreen(api, <NotificationsScreen env={env} />);
  const nav = [...document.querySelectorAll('nav[aria-label="Settings"] a')].map((a) => [a.textContent, a.getAttribute('aria-current')]);
  assert.equal(nav.slice(-2), [['Webhooks', null], ['Notifications', null]]); // history's path is '/' here
  assert.equal(resolveRoute('/settings/notifications'), { name: 'settings-notifications' });
  assert.match(thisDevice().textContent!, 'Notifications are off on this device.');
  assert.equal(ticked(), ['Agent needs help', 'Mail awaiting approval', 'Spend limit reached', 'Run failed']);
  assert.equal(others(), ['Firefox on Linux', 'Safari on iPad']);

  await click(box('Mail awaiting approval'));
  await press('Allow notifications on this device');
  await waitFor(() => thisDevice().textContent!.includes('Notifications are on'), 'this device on');
  assert.is(seen.prompts, 1);
  assert.equal([...seen.subscribed[0]], [...base64UrlBytes(PUBLIC_KEY)]);
  assert.is(seen.subscribed[0].length, 65);
  assert.equal(calls(api, 'POST'), [['/api/push/subscriptions', {
    endpoint: 'https://fcm.googleapis.com/fcm/send/new-device', keys: { p256dh: 'BPk-p256dh-key', auth: 'auth-secret' },
    events: ['run.needs_help', 'billing.limit_reached', 'run.failed'], label: 'Chrome on Android',
  }]]);
  assert.is(thisDevice().querySelector('strong')!.textContent, 'Chrome on Android');
  assert.equal(ticked(), ['Agent needs help', 'Spend limit reached', 'Run failed']);
  assert.equal(JSON.parse(seen.saved.get('awPushDevice')!), { endpoint: 'https://fcm.googleapis.com/fcm/send/new-device', id: state.devices[0].id });
  assert.equal(others(), ['Firefox on Linux', 'Safari on iPad']); // this device is not among the others
});

test('on this device: a ticked event is saved at once, a test is sent, and Turn off deletes and unsubscribes', async () => {
  const phone = { ...LAPTOP, id: 9, label: 'Chrome on Android', events: ['run.needs_help'] };
  const { api, state } = pushApi([phone, LAPTOP]);
  const { env, seen } = fakeBrowser(subscribedAs(9));
  await renderScreen(api, <NotificationsScreen env={env} />);
  assert.match(thisDevice().textContent!, 'Notifications are on for Chrome on Android.');
  assert.equal(ticked(), ['Agent needs help']);
  assert.equal(others(), ['Firefox on Linux']);

  await click(box('Run failed'));
  await settle();
  assert.equal(calls(api, 'PATCH'), [['/api/push/subscriptions/9', { events: ['run.needs_help', 'run.failed'] }]]);
  assert.equal(ticked(), ['Agent needs help', 'Run failed']);
  // While a change is saved the box shows it; refused, the box goes back and the detail shows.
  let refuse!: (r: Response) => void;
  api.on('PATCH /api/push/subscriptions/9', () => new Promise<Response>((resolve) => (refuse = resolve)));
  await click(box('Spend limit reached'));
  assert.equal(ticked(), ['Agent needs help', 'Spend limit reached', 'Run failed']);
  refuse(json({ detail: 'The database cannot write right now' }, 503));
  await settle();
  assert.equal(ticked(), ['Agent needs help', 'Run failed']);
  assert.is(getRole('alert').textContent, 'The database cannot write right now');

  await press('Send a test notification');
  await settle();
  assert.equal(state.tests, [9]);
  assert.is(getRole('status').textContent, TEST_SENT);

  await press('Turn off on this device');
  await waitFor(() => thisDevice().textContent!.includes('Notifications are off'), 'this device off');
  assert.equal(calls(api, 'DELETE'), [['/api/push/subscriptions/9', null]]);
  assert.ok(seen.subscription!.unsubscribed);
  assert.not.ok(seen.saved.has('awPushDevice'));
  assert.equal(others(), ['Firefox on Linux']);
  assert.equal(seen.prompts, 0); // allowed before: never asked again
});

test('other devices show their events and dates, and Remove deletes one', async () => {
  const { api } = pushApi();
  await renderScreen(api, <NotificationsScreen env={fakeBrowser().env} />);
  const items = [...document.querySelectorAll('ul[aria-label="Other devices"] > li')].map((li) => li.textContent);
  assert.equal(items, [
    `Firefox on LinuxAgent needs help, Run failedAdded ${formatDateTime(LAPTOP.created_at)} · Last notified ${formatDateTime(LAPTOP.last_sent_at)}Remove`,
    `Safari on iPadSpend limit reachedAdded ${formatDateTime(TABLET.created_at)} · Not notified yetRemove`,
  ]);
  await press('Remove Safari on iPad');
  await settle();
  assert.equal(calls(api, 'DELETE'), [['/api/push/subscriptions/3', null]]);
  assert.equal(others(), ['Firefox on Linux']);
  api.on('DELETE /api/push/subscriptions/4', () => json({ detail: 'The database cannot write right now' }, 503));
  await press('Remove Firefox on Linux');
  await settle();
  assert.is(getRole('alert').textContent, 'The database cannot write right now');
  assert.equal(others(), ['Firefox on Linux']);
});

test('a subscription whose device the server no longer lists counts as off, and allowing again reuses it', async () => {
  const { api } = pushApi([LAPTOP]);
  const { env, seen } = fakeBrowser(subscribedAs(9)); // id 9 was removed from another device
  await renderScreen(api, <NotificationsScreen env={env} />);
  assert.match(thisDevice().textContent!, 'Notifications are off on this device.');
  await press('Allow notifications on this device');
  await waitFor(() => thisDevice().textContent!.includes('Notifications are on'), 'this device on');
  assert.equal(seen.subscribed, []); // the browser's subscription for the same key was kept
  assert.equal(calls(api, 'POST').map(([, body]) => (body as { endpoint: string }).endpoint), ['https://fcm.googleapis.com/fcm/send/this-phone']);
});

test('says why when the browser cannot, the permission is blocked or refused, the worker is missing, or a step fails', async () => {
  const says = async (browser: ReturnType<typeof fakeBrowser>, expected: string, api = pushApi().api) => {
    await renderScreen(api, <NotificationsScreen env={browser.env} />);
    if (byRole('button', 'Allow notifications on this device').length) await press('Allow notifications on this device');
    await settle();
    assert.match(thisDevice().textContent!, expected);
    await cleanup();
  };
  await says(fakeBrowser({ unsupported: UNSUPPORTED.browser }), UNSUPPORTED.browser);
  await says(fakeBrowser({ permission: 'denied' }), BLOCKED);
  await says(fakeBrowser({ answer: 'denied' }), BLOCKED);
  await says(fakeBrowser({ answer: 'default' }), 'Notifications were not allowed. Choose Allow when the browser asks.');
  await says(fakeBrowser({ worker: false }), NO_WORKER);
  await says(fakeBrowser({ refuse: 'Registration failed - permission denied' }),
    'The browser could not subscribe to its push service: Registration failed - permission denied');
  const refusing = pushApi().api.on('POST /api/push/subscriptions', () =>
    json({ detail: [{ loc: ['body', 'endpoint'], msg: 'endpoint: must be an https URL' }] }, 422));
  await says(fakeBrowser(), 'endpoint: must be an https URL', refusing);
  // Nothing was left half made: an error keeps the button for another try.
  const unsupported = fakeBrowser({ unsupported: UNSUPPORTED.insecure });
  await renderScreen(pushApi().api, <NotificationsScreen env={unsupported.env} />);
  assert.is(byRole('button', 'Allow notifications on this device').length, 0);
  assert.equal(others(), ['Firefox on Linux', 'Safari on iPad']);
  assert.match(text(), UNSUPPORTED.insecure);
});

test('a device is named by its browser and system', () => {
  assert.is(deviceLabel(ANDROID_UA), 'Chrome on Android');
  assert.is(deviceLabel('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 '
    + 'Mobile/15E148 Safari/604.1'), 'Safari on iPhone');
  assert.is(deviceLabel('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 '
    + 'Edg/131.0.0.0'), 'Edge on Windows');
  assert.is(deviceLabel('Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'), 'Firefox on Linux');
  assert.is(deviceLabel('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15'),
    'Safari on macOS');
  assert.is(deviceLabel('curl/8.5'), 'This browser');
});

test.run();
