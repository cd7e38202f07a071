// Ids the routes take from the path or the body, checked against what the caller may see: one place
// for "which agent does this request mean" (404 for a missing, malformed or foreign one).
import { ownedAgentId } from './access.ts';
import { idField, type Ctx } from '../http/api.ts';
import { invalid } from '../http/errors.ts';

/** The agent named by `raw` (default: the path's :id), owned by the caller (admins: any). */
export async function agentIdParam(ctx: Ctx, raw: unknown = ctx.params.id): Promise<number> {
  if (raw === undefined || raw === null) throw invalid('agent_id', 'agent_id is required');
  return ownedAgentId(ctx.db, ctx.user, idField(raw, 'agent_id', 'Agent not found'));
}
