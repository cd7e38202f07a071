// /api/credentials (issue 45): a user's own credentials, their grants and fill history, and the answers to fills
// waiting for approval. Everything acts as ctx.user (an impersonating admin acts as the owner); another user's
// credential reads as missing. No answer ever carries a password or TOTP secret: Credential has no field for one.
import { idParam, type Api, type Ctx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';
import { record } from '../audit/audit.ts';
import { approvalScreenshot, decide, ownedApproval } from './approvals.ts';
import { createCredential, deleteCredential, getCredential, listCredentials, updateCredential } from './credentials.ts';
import { listFills } from './fills.ts';
import { setGrants } from './grants.ts';
import { parseCredentialInput } from './input.ts';
import type { VaultBox } from './vault-box.ts';

export type VaultRouteDeps = { box: VaultBox; bus: Bus };

const NOT_FOUND = 'Credential not found';
const TAKEN = (name: string) => invalid('name', `name: you already have a credential named “${name}”`);

export function registerVaultRoutes(api: Api, deps: VaultRouteDeps) {
  const { box } = deps;
  const owned = async (ctx: Ctx) => {
    const found = await getCredential(ctx.db, box, ctx.user.id, idParam(ctx.params.id, NOT_FOUND));
    if (!found) throw new HttpError(404, NOT_FOUND);
    return found;
  };

  api.get('/credentials', (ctx) => listCredentials(ctx.db, box, ctx.user.id));

  api.get('/credentials/:id', owned);

  api.post('/credentials', async (ctx) => {
    const input = parseCredentialInput(await ctx.body(), true);
    const id = await ctx.db.tx(async (q) => {
      const made = await createCredential(q, box, ctx.user.id, input);
      if (made === null) throw TAKEN(input.name!);
      await record(q, { action: 'credential.create', target: { type: 'credential', id: made }, detail: { name: input.name, targets: input.targets ?? [] } });
      return made;
    });
    ctx.status = 201;
    return getCredential(ctx.db, box, ctx.user.id, id);
  });

  api.patch('/credentials/:id', async (ctx) => {
    const before = await owned(ctx);
    const input = parseCredentialInput(await ctx.body(), false);
    await ctx.db.tx(async (q) => {
      const changed = await updateCredential(q, box, before.id, input);
      if (changed === false) throw TAKEN(input.name!);
      await record(q, { action: 'credential.update', target: { type: 'credential', id: before.id }, detail: { name: input.name ?? before.name, changed } });
    });
    return owned(ctx);
  });

  api.delete('/credentials/:id', async (ctx) => {
    const before = await owned(ctx);
    await ctx.db.tx(async (q) => {
      await deleteCredential(q, before.id);
      await record(q, { action: 'credential.delete', target: { type: 'credential', id: before.id }, detail: { name: before.name } });
    });
    return null;
  });

  api.put('/credentials/:id/grants', async (ctx) => {
    const before = await owned(ctx);
    const body = await ctx.body();
    const ids = body.agent_ids;
    if (!Array.isArray(ids) || ids.some((v) => !Number.isSafeInteger(v) || v <= 0)) throw invalid('agent_ids', 'agent_ids: a list of agent ids');
    if (typeof body.ask_each_time !== 'boolean') throw invalid('ask_each_time', 'ask_each_time: true or false');
    const ask = body.ask_each_time;
    await ctx.db.tx(async (q) => {
      const change = await setGrants(q, before.id, before.owner_id, [...new Set(ids as number[])], ask);
      const target = { type: 'credential' as const, id: before.id };
      for (const agent_id of change.added) await record(q, { action: 'credential.grant', target, detail: { name: before.name, agent_id, ask_each_time: ask } });
      for (const agent_id of change.removed) await record(q, { action: 'credential.revoke', target, detail: { name: before.name, agent_id } });
    });
    return owned(ctx);
  });

  api.get('/credentials/:id/fills', async (ctx) => listFills(ctx.db, (await owned(ctx)).id));

  const approval = async (ctx: Ctx) => {
    const found = await ownedApproval(ctx.db, idParam(ctx.params.id, 'Approval not found'), ctx.user.id);
    if (!found) throw new HttpError(404, 'Approval not found');
    return found;
  };

  api.post('/credential_approvals/:id', async (ctx) => {
    const found = await approval(ctx);
    const { approve } = await ctx.body();
    if (typeof approve !== 'boolean') throw invalid('approve', 'approve: true or false');
    const state = await ctx.db.tx(async (q) => {
      const decided = await decide(q, found.id, approve, ctx.user.id);
      await record(q, {
        action: 'credential.approval', target: { type: 'credential', id: found.credential_id },
        detail: { name: found.name, state: decided, agent_id: found.agent_id, thread_id: found.thread_id },
      });
      return decided;
    });
    deps.bus.publish(TOPICS.threadChanged(found.thread_id), { id: found.thread_id });
    return { state };
  });

  api.get('/credential_approvals/:id/screenshot', async (ctx) => {
    const png = await approvalScreenshot(ctx.db, (await approval(ctx)).id);
    if (!png) throw new HttpError(404, 'No screenshot');
    ctx.res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length, 'Cache-Control': 'no-store' });
    ctx.res.end(ctx.req.method === 'HEAD' ? undefined : png);
    return undefined;
  });
}
