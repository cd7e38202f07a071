// /api/push (issue 47): the VAPID public key, the caller's devices (one browser's push subscription each) with the
// events each wants, a test notification; and /api/help-links/:token/use, the help request's one-time link. Everything
// acts as ctx.user; another user's device reads as missing. An endpoint must be an https URL of a public address
// (WEBHOOK_ALLOW_PRIVATE=1 also lets http and private ones through, for tests), checked again at each push.
import { idParam, type Api, type Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { record } from '../audit/audit.ts';
import { checkedAddress, parseTarget, RefusedTarget, wakeDeliveries, type Resolve } from '../webhooks/index.ts';
import { isP256PublicKey } from './encrypt.ts';
import { HELP_LINK_GONE, useHelpLink } from './help-links.ts';
import { PUSH_EVENTS } from './notification.ts';
import { queueTestPush } from './queue.ts';
import { countDevices, deleteDevice, getDevice, listDevices, MAX_DEVICES, saveDevice, updateDevice, type DeviceFields } from './subscriptions.ts';
import type { Vapid } from './vapid.ts';

/** `allowPrivate`: WEBHOOK_ALLOW_PRIVATE, read per request. */
export type PushRouteDeps = { vapid: Vapid; bus: Bus; allowPrivate: () => boolean; resolve?: Resolve };

const NOT_FOUND = 'Device not found';
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

export function registerPushRoutes(api: Api, deps: PushRouteDeps) {
  const owned = async (ctx: Ctx) => {
    const found = await getDevice(ctx.db, idParam(ctx.params.id, NOT_FOUND), ctx.user.id);
    if (!found) throw new HttpError(404, NOT_FOUND);
    return found;
  };

  api.get('/push/key', () => ({ public_key: deps.vapid.publicKey }));

  api.get('/push/subscriptions', (ctx) => listDevices(ctx.db, ctx.user.id));

  api.post('/push/subscriptions', async (ctx) => {
    const body = await ctx.body();
    const f: DeviceFields = {
      endpoint: await endpointOf(body.endpoint, deps), ...keysOf(body.keys), events: eventsOf(body.events),
      label: body.label === undefined ? deviceName(String(ctx.req.headers['user-agent'] ?? '')) : labelOf(body.label),
    };
    const { device, created } = await ctx.db.tx(async (q) => {
      // One at a time per user (the row lock), so the limit holds against requests that race.
      await q.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [ctx.user.id]);
      const [known] = await q.query('SELECT 1 FROM push_subscriptions WHERE endpoint = $1 AND user_id = $2', [f.endpoint, ctx.user.id]);
      if (!known && (await countDevices(q, ctx.user.id)) >= MAX_DEVICES) {
        throw invalid('endpoint', `endpoint: at most ${MAX_DEVICES} devices per user; remove one first`);
      }
      const saved = await saveDevice(q, ctx.user.id, f);
      await record(q, {
        action: saved.created ? 'push.subscribe' : 'push.update', target: { type: 'push_device', id: saved.device.id },
        detail: { label: f.label, events: saved.device.events, endpoint_origin: saved.device.endpoint_origin },
      });
      return saved;
    });
    ctx.status = created ? 201 : 200;
    return device;
  });

  api.patch('/push/subscriptions/:id', async (ctx) => {
    const device = await owned(ctx);
    const body = await ctx.body();
    const f = { events: body.events === undefined ? undefined : eventsOf(body.events), label: body.label === undefined ? undefined : labelOf(body.label) };
    await ctx.db.tx(async (q) => {
      await updateDevice(q, device.id, f);
      const changed = Object.keys(f).filter((k) => f[k as keyof typeof f] !== undefined);
      await record(q, { action: 'push.update', target: { type: 'push_device', id: device.id }, detail: { changed, events: f.events, label: f.label } });
    });
    return getDevice(ctx.db, device.id, ctx.user.id);
  });

  api.delete('/push/subscriptions/:id', async (ctx) => {
    const device = await owned(ctx);
    await ctx.db.tx(async (q) => {
      await deleteDevice(q, device.id);
      await record(q, {
        action: 'push.unsubscribe', target: { type: 'push_device', id: device.id },
        detail: { label: device.label, endpoint_origin: device.endpoint_origin },
      });
    });
    return null;
  });

  api.post('/push/subscriptions/:id/test', async (ctx) => {
    await queueTestPush(ctx.db, (await owned(ctx)).id);
    wakeDeliveries(deps.bus);
    ctx.status = 202;
    return {};
  });

  // The help request's one-time link: its owner's signed-in session only (not an API token, not an admin acting
  // as them); whatever else is wrong, one answer.
  api.post('/help-links/:token/use', async (ctx) => {
    if (ctx.scope) throw new HttpError(403, 'Forbidden: a help link is used from a signed-in session, not with an API token');
    if (ctx.user.id !== ctx.realUser.id) throw new HttpError(404, HELP_LINK_GONE);
    return ctx.db.tx(async (q) => {
      const target = await useHelpLink(q, ctx.params.token ?? '', ctx.user.id);
      if (!target) throw new HttpError(404, HELP_LINK_GONE);
      await record(q, { action: 'help_link.use', target: { type: 'thread', id: target.thread_id }, detail: { agent_id: target.agent_id } });
      return target;
    });
  });
}

async function endpointOf(value: unknown, deps: PushRouteDeps): Promise<string> {
  const what = 'endpoint: the https address of a push service, at most 2000 characters';
  let url: URL;
  try {
    url = parseTarget(value);
  } catch {
    throw invalid('endpoint', what);
  }
  if (url.protocol !== 'https:' && !deps.allowPrivate()) throw invalid('endpoint', what);
  try {
    await checkedAddress(url, deps.allowPrivate(), deps.resolve);
  } catch (err) {
    if (err instanceof RefusedTarget) throw invalid('endpoint', `endpoint: ${err.message}`);
    throw err;
  }
  return url.href;
}

function keysOf(value: unknown): { p256dh: string; auth: string } {
  const keys = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const bytes = (text: unknown) => (typeof text === 'string' && BASE64URL.test(text) ? Buffer.from(text, 'base64url') : Buffer.alloc(0));
  if (!isP256PublicKey(bytes(keys.p256dh))) throw invalid('keys', 'keys: p256dh must be the browser\'s P-256 public key (65 bytes, base64url)');
  if (bytes(keys.auth).length !== 16) throw invalid('keys', 'keys: auth must be the browser\'s 16-byte secret, base64url');
  return { p256dh: bytes(keys.p256dh).toString('base64url'), auth: bytes(keys.auth).toString('base64url') };
}

function eventsOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((e) => !(PUSH_EVENTS as readonly unknown[]).includes(e))) {
    throw invalid('events', `events: a list of any of ${PUSH_EVENTS.join(', ')}`);
  }
  return value as string[];
}

function labelOf(value: unknown): string {
  const label = typeof value === 'string' ? value.trim() : null;
  if (label === null || label.length > 100) throw invalid('label', 'label: a name of at most 100 characters');
  return label;
}

/** A name for a device that came without one, from its browser's User-Agent: "Chrome on Android". */
export function deviceName(userAgent: string): string {
  const browser = [['Edg/', 'Edge'], ['Firefox/', 'Firefox'], ['Chrome/', 'Chrome'], ['Safari/', 'Safari']].find(([m]) => userAgent.includes(m))?.[1];
  const system = [['Android', 'Android'], ['iPhone', 'iPhone'], ['iPad', 'iPad'], ['Windows', 'Windows'], ['Mac OS X', 'macOS'], ['Linux', 'Linux']]
    .find(([m]) => userAgent.includes(m))?.[1];
  return browser && system ? `${browser} on ${system}` : browser ?? system ?? 'A browser';
}
