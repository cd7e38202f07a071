// GET /api/openapi.json: the document, built from the route table on the first request (every wing has registered
// its routes by then) and kept for the life of the process; cacheable, with an ETag.
import type { Api } from '../http/api.ts';
import { etagOf, notModified } from '../http/conditional.ts';
import { JsonText } from '../http/json-text.ts';
import { buildOpenApi } from './document.ts';
import { TABLES } from './tables.ts';

const CACHE_CONTROL = 'public, max-age=3600';

export function registerOpenApiRoutes(api: Api): void {
  let document: JsonText | undefined;
  api.get('/openapi.json', (ctx) => {
    document ??= new JsonText(JSON.stringify(buildOpenApi(api.routes(), TABLES)));
    const etag = etagOf(document.text, document);
    if (notModified(ctx.req, etag)) {
      ctx.res.writeHead(304, { ETag: etag, 'Cache-Control': CACHE_CONTROL, Vary: 'Accept-Encoding' });
      ctx.res.end();
      return undefined;
    }
    Object.assign(ctx.headers, { ETag: etag, 'Cache-Control': CACHE_CONTROL });
    return document;
  }, 'public');
}
