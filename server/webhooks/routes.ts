// /api/webhooks (issue 46): a user's endpoints (the secret shown once, when made), their delivery log, a test event
// and a redelivery. Everything acts as ctx.user; another user's endpoint or delivery reads as missing. The URL is
// checked where it is set (a refused one is a 422 naming why) and again before every attempt (deliverer.ts).
import { idParam, type Api, type Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { intQuery } from '../http/query.ts';
import type { Bus } from '../realtime/bus.ts';
import type { SecretBox } from '../system/secret-box.ts';
import { record } from '../audit/audit.ts';
import { checkedAddress, parseTarget, RefusedTarget, type Resolve } from './address-guard.ts';
import {
  countEndpoints, createEndpoint, deleteEndpoint, getEndpoint, listDeliveries, listEndpoints, MAX_ENDPOINTS, queueTest, redeliver,
  updateEndpoint, type EndpointFields,
} from './endpoints.ts';
import { EVENTS, newEventId, wakeDeliveries } from './events.ts';

/** `allowPrivate`: WEBHOOK_ALLOW_PRIVATE, read per request. */
export type WebhookRouteDeps = { box: SecretBox; bus: Bus; allowPrivate: () => boolean; resolve?: Resolve };

const NOT_FOUND = 'Webhook not found';

export function registerWebhookRoutes(api: Api, deps: WebhookRouteDeps) {
  const owned = async (ctx: Ctx) => {
    const found = await getEndpoint(ctx.db, idParam(ctx.params.id, NOT_FOUND), ctx.user.id);
    if (!found) throw new HttpError(404, NOT_FOUND);
    return found;
  };

  /** The fields the body sets, checked; `all`: a new endpoint, which needs url and events. */
  const fields = async (ctx: Ctx, body: Record<string, unknown>, all: boolean): Promise<Partial<EndpointFields>> => {
    const out: Partial<EndpointFields> = {};
    if (all || body.url !== undefined) {
      try {
        const url = parseTarget(body.url);
        await checkedAddress(url, deps.allowPrivate(), deps.resolve);
        out.url = url.href;
      } catch (err) {
        if (err instanceof RefusedTarget) throw invalid('url', `url: ${err.message}`);
        throw err;
      }
    }
    if (all || body.events !== undefined) {
      const events = body.events;
      if (!Array.isArray(events) || !events.length || events.some((e) => !(EVENTS as readonly unknown[]).includes(e))) {
        throw invalid('events', `events: choose one or more of ${EVENTS.join(', ')}`);
      }
      out.events = [...new Set(events as string[])];
    }
    if (body.agent_id !== undefined) {
      if (body.agent_id === null) out.agentId = null;
      else {
        const agentId = body.agent_id;
        if (!Number.isSafeInteger(agentId) || (agentId as number) <= 0) throw invalid('agent_id', 'agent_id: an agent\'s id, or null for all agents');
        const [agent] = await ctx.db.query('SELECT 1 FROM agents WHERE id = $1 AND owner_id = $2', [agentId, ctx.user.id]);
        if (!agent) throw invalid('agent_id', 'agent_id: no such agent');
        out.agentId = agentId as number;
      }
    }
    return out;
  };

  api.get('/webhooks', (ctx) => listEndpoints(ctx.db, ctx.user.id));

  api.post('/webhooks', async (ctx) => {
    const f = (await fields(ctx, await ctx.body(), true)) as EndpointFields;
    f.agentId ??= null;
    const made = await ctx.db.tx(async (q) => {
      // One at a time per user (the row lock), so the limit holds against requests that race.
      await q.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [ctx.user.id]);
      if ((await countEndpoints(q, ctx.user.id)) >= MAX_ENDPOINTS) throw invalid('url', `url: at most ${MAX_ENDPOINTS} endpoints per user`);
      const endpoint = await createEndpoint(q, deps.box, ctx.user.id, f);
      await record(q, { action: 'webhook.create', target: { type: 'webhook', id: endpoint.id }, detail: { url: f.url, events: f.events } });
      return endpoint;
    });
    ctx.status = 201;
    return made;
  });

  api.patch('/webhooks/:id', async (ctx) => {
    const endpoint = await owned(ctx);
    const body = await ctx.body();
    const f = await fields(ctx, body, false);
    if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw invalid('enabled', 'enabled: true or false');
    const enabled = body.enabled as boolean | undefined;
    await ctx.db.tx(async (q) => {
      await updateEndpoint(q, endpoint.id, { ...f, enabled });
      const changed = [...Object.keys(f).map((k) => (k === 'agentId' ? 'agent_id' : k)), ...(enabled === undefined ? [] : ['enabled'])];
      await record(q, { action: 'webhook.update', target: { type: 'webhook', id: endpoint.id }, detail: { url: f.url ?? endpoint.url, changed, enabled } });
    });
    return getEndpoint(ctx.db, endpoint.id, ctx.user.id);
  });

  api.delete('/webhooks/:id', async (ctx) => {
    const endpoint = await owned(ctx);
    await ctx.db.tx(async (q) => {
      await deleteEndpoint(q, endpoint.id);
      await record(q, { action: 'webhook.delete', target: { type: 'webhook', id: endpoint.id }, detail: { url: endpoint.url } });
    });
    return null;
  });

  api.post('/webhooks/:id/test', async (ctx) => {
    const delivery = await queueTest(ctx.db, await owned(ctx), newEventId());
    wakeDeliveries(deps.bus);
    ctx.status = 201;
    return delivery;
  });

  api.get('/webhooks/:id/deliveries', async (ctx) => {
    const endpoint = await owned(ctx);
    return listDeliveries(ctx.db, endpoint.id, intQuery(ctx.query, 'limit', 50, 1, 200), intQuery(ctx.query, 'offset', 0, 0, 1_000_000));
  });

  api.post('/webhooks/deliveries/:id/redeliver', async (ctx) => {
    const delivery = await redeliver(ctx.db, idParam(ctx.params.id, 'Delivery not found'), ctx.user.id);
    if (!delivery) throw new HttpError(404, 'Delivery not found');
    wakeDeliveries(deps.bus);
    ctx.status = 201;
    return delivery;
  });
}
