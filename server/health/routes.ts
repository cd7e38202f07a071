import type { Api } from '../http/api.ts';
import { HttpError } from '../http/errors.ts';

export function registerHealthRoutes(api: Api) {
  api.get('/health', async (ctx) => {
    try {
      await ctx.db.query('SELECT 1');
    } catch {
      throw new HttpError(503, 'Database is not answering');
    }
    return { ok: true };
  }, 'public');
}
