// This device's notifications as the settings screen shows them: what the browser allows, whether it is one of the
// user's devices (its subscription, and the id remembered for it, still on the server's list), and the actions on it.
// The devices list itself is the screen's (useResource): every answer here updates it in place.
import { useCallback, useEffect, useState } from 'react';
import { normalizeError } from '../../../lib/http.ts';
import { addPushDevice, getPushKey, removePushDevice, sendTestPush, updatePushDevice, type PushDevice } from '../../../lib/push-api.ts';
import {
  deviceLabel, rememberDevice, rememberedDevice, subscribe, type PushEnv, type PushManagerLike, type SubscriptionLike,
} from '../../../lib/push-device.ts';

export type DeviceStatus =
  | { kind: 'checking' }
  | { kind: 'unsupported'; reason: string }
  | { kind: 'blocked' }
  | { kind: 'off' }
  | { kind: 'on'; device: PushDevice };

export type Busy = 'allow' | 'events' | 'test' | 'off' | null;

type Browser = { reason: string | null; manager: PushManagerLike | null; subscription: SubscriptionLike | null; id: number | null };

export const NO_WORKER = 'The app\'s service worker is not running on this page, so it cannot receive notifications. Reload the page.';
export const TEST_SENT = 'Test notification sent. It should arrive within a few seconds.';

/** `devices`: the user's devices as last loaded; `setDevices`: replaces that list (the resource's mutate). */
export function usePushDevice(env: PushEnv, devices: PushDevice[] | undefined, setDevices: (change: (list: PushDevice[]) => PushDevice[]) => void) {
  const [browser, setBrowser] = useState<Browser | null>(null);
  const [permission, setPermission] = useState<NotificationPermission>('default');
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // The events as ticked while their PATCH is under way: the box shows its new state at once, and the old one if refused.
  const [pendingEvents, setPendingEvents] = useState<string[] | null>(null);

  useEffect(() => {
    let live = true;
    (async (): Promise<Browser> => {
      const reason = env.unsupported();
      if (reason) return { reason, manager: null, subscription: null, id: null };
      setPermission(env.permission());
      const manager = await env.pushManager();
      if (!manager) return { reason: NO_WORKER, manager: null, subscription: null, id: null };
      const subscription = await manager.getSubscription();
      return { reason: null, manager, subscription, id: subscription ? rememberedDevice(env, subscription.endpoint) : null };
    })().then(
      (found) => live && setBrowser(found),
      (err: unknown) => live && setBrowser({ reason: normalizeError(err).detail, manager: null, subscription: null, id: null }),
    );
    return () => void (live = false);
  }, [env]);

  const device = browser && browser.id !== null ? devices?.find((d) => d.id === browser.id) : undefined;
  const status: DeviceStatus = !browser || (browser.id !== null && !devices)
    ? { kind: 'checking' }
    : browser.reason ? { kind: 'unsupported', reason: browser.reason }
      : permission === 'denied' ? { kind: 'blocked' }
        : device ? { kind: 'on', device } : { kind: 'off' };

  const upsert = useCallback((saved: PushDevice) => setDevices((list) => [saved, ...list.filter((d) => d.id !== saved.id)]), [setDevices]);

  /** Runs one action: its busy mark, its error shown (the server's detail, or the browser's words), any notice cleared. */
  const act = useCallback(async (what: Exclude<Busy, null>, run: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    setNotice(null);
    try {
      await run();
    } catch (err) {
      setError(normalizeError(err).detail);
    } finally {
      setBusy(null);
    }
  }, []);

  const allow = (events: string[]) => act('allow', async () => {
    const granted = env.permission() === 'granted' ? 'granted' : await env.requestPermission();
    setPermission(granted);
    if (granted === 'denied') return; // the blocked state says what to do
    if (granted !== 'granted') throw new Error('Notifications were not allowed. Choose Allow when the browser asks.');
    const manager = browser?.manager ?? (await env.pushManager());
    if (!manager) throw new Error(NO_WORKER);
    const { public_key } = await getPushKey();
    const subscription = await subscribe(manager, public_key).catch((err: unknown) => {
      throw new Error(`The browser could not subscribe to its push service: ${normalizeError(err).detail}`);
    });
    const { keys } = subscription.toJSON();
    const saved = await addPushDevice({
      endpoint: subscription.endpoint, keys: { p256dh: keys?.p256dh ?? '', auth: keys?.auth ?? '' }, events, label: deviceLabel(env.userAgent),
    });
    rememberDevice(env, subscription.endpoint, saved.id);
    setBrowser({ reason: null, manager, subscription, id: saved.id });
    upsert(saved);
  });

  const setEvents = (on: PushDevice, events: string[]) => {
    setPendingEvents(events);
    return act('events', async () => upsert(await updatePushDevice(on.id, { events }))).finally(() => setPendingEvents(null));
  };

  const sendTest = (on: PushDevice) => act('test', async () => {
    await sendTestPush(on.id);
    setNotice(TEST_SENT);
  });

  /** Off on this device: the server forgets it (already gone is fine), then the browser's subscription ends. */
  const turnOff = (on: PushDevice) => act('off', async () => {
    await removePushDevice(on.id).catch((err: unknown) => {
      if (normalizeError(err).status_code !== 404) throw err;
    });
    setDevices((list) => list.filter((d) => d.id !== on.id));
    if (browser?.subscription) {
      rememberDevice(env, browser.subscription.endpoint, null);
      await browser.subscription.unsubscribe().catch(() => false);
    }
    setBrowser((current) => current && { ...current, subscription: null, id: null });
  });

  /** This device's events as shown: the ones being saved, else the server's. */
  const events = pendingEvents ?? (status.kind === 'on' ? status.device.events : []);
  return { status, events, busy, error, notice, allow, setEvents, sendTest, turnOff };
}
