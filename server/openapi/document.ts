// Builds the OpenAPI 3.1 document from the route table (paths, methods, auth levels) and the wings' description
// tables (what a handler takes and answers). A route without a description is still listed, with no success
// answer, so the document never hides a route and the coverage test names the missing description.
import type { RouteInfo } from '../http/api.ts';
import { COMPONENTS, errorRef, SHARED_SCHEMAS } from './components.ts';
import type { Operation, Param, Schema, WingTable } from './schema.ts';

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: Record<string, unknown>;
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: Record<string, unknown>;
};

const INFO = {
  title: 'Agent Workspace API',
  version: '1',
  description: 'Every route of the server under /api, generated from its route table. Errors are `{detail}` JSON with the status. '
    + 'Sign in with POST /api/auth/sign-in (or use a personal API token, `aw_…`) and send `Authorization: Bearer <token>`. '
    + 'Polled JSON lists carry an ETag and answer 304 to a matching If-None-Match.',
};

/** `/agents/:id` → `/agents/{id}`. */
export const openApiPath = (pattern: string) => pattern.replace(/:(\w+)/g, '{$1}');

/** "METHOD /pattern" as the description tables key their operations (WS for a socket, as Api.routes() lists it). */
export const routeKey = (route: Pick<RouteInfo, 'method' | 'path'>) => `${route.method} ${route.path}`;

export function buildOpenApi(routes: RouteInfo[], tables: WingTable[]): OpenApiDocument {
  const described = new Map<string, { op: Operation; tag: string }>();
  for (const table of tables) for (const [key, op] of Object.entries(table.operations)) described.set(key, { op, tag: table.tag });
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const found = described.get(routeKey(route));
    const path = openApiPath(route.path);
    const method = route.method === 'WS' ? 'get' : route.method.toLowerCase();
    (paths[path] ??= {})[method] = found ? operation(route, found.op, found.tag) : undocumented(route);
  }
  const schemas = Object.assign({}, SHARED_SCHEMAS, ...tables.map((t) => t.schemas ?? {}));
  return {
    openapi: '3.1.0',
    info: INFO,
    servers: [{ url: '/api' }],
    tags: tables.map((t) => ({ name: t.tag, description: t.description })),
    paths,
    components: { schemas, ...COMPONENTS },
  };
}

function undocumented(route: RouteInfo) {
  const parameters = pathParams(route.path, {});
  return { summary: `${routeKey(route)} (not described yet)`, parameters, responses: { default: { description: 'Not described' } } };
}

function operation(route: RouteInfo, op: Operation, tag: string): Record<string, unknown> {
  const socket = route.method === 'WS';
  const authed = route.auth !== 'public';
  const parameters = [
    ...pathParams(route.path, op.path ?? {}),
    ...params('query', op.query ?? {}),
    ...params('header', op.headers ?? {}),
    ...(socket && authed ? params('query', SOCKET_QUERY) : []),
    ...(authed ? [{ $ref: '#/components/parameters/ImpersonateUserId' }] : []),
  ];
  const responses: Record<string, unknown> = {};
  for (const status of errorsOf(route, op)) responses[status] = errorRef(status);
  for (const [status, answer] of Object.entries(op.responses)) responses[status] = answer;
  return {
    tags: [tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    operationId: operationId(route),
    security: security(route, op),
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: requestBody(op.body) } : {}),
    responses: sortByStatus(responses),
  };
}

/** The errors the route table implies (auth, path ids, bodies, query values, the database) and the route's own. */
function errorsOf(route: RouteInfo, op: Operation): number[] {
  const out = new Set(op.errors ?? []);
  // A socket's refusals after the upgrade (auth, ids, the database) are close codes, not statuses: see its 101.
  if (route.method === 'WS') return [...out.add(426)];
  if (route.auth !== 'public') [401, 403, 404].forEach((s) => out.add(s));
  if (/:\w+/.test(route.path)) out.add(404);
  if (op.body) [413, 422].forEach((s) => out.add(s));
  if (op.body && !('content' in op.body)) out.add(400);
  if (op.query && Object.keys(op.query).length) out.add(422);
  if (!op.noDatabase) out.add(503);
  return [...out];
}

const SOCKET_QUERY: Record<string, Param> = {
  token: { schema: { type: 'string' }, description: 'The access token or API token (instead of an Authorization header).' },
  impersonate: { schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'Admins: act as this user (the X-Impersonate-User-Id of a socket).' },
};

function security(route: RouteInfo, op: Operation): Record<string, string[]>[] {
  if (op.security === 'metrics') return [{ session: ['admin'] }, { apiToken: ['admin'] }, { metricsToken: [] }];
  if (route.auth === 'public') return [];
  const admin = route.auth === 'admin';
  const scope = admin ? 'admin' : route.method === 'GET' || route.method === 'WS' ? 'read' : 'write';
  if (op.security === 'session') return [{ session: admin ? ['admin'] : [] }];
  const header: Record<string, string[]>[] = [{ session: admin ? ['admin'] : [] }, { apiToken: [scope] }];
  return route.method === 'WS' ? [{ queryToken: [] }, ...header] : header;
}

function pathParams(pattern: string, given: Record<string, Param>) {
  return [...pattern.matchAll(/:(\w+)/g)].map(([, name]) => {
    const isId = name === 'id' || /Id$/.test(name);
    const param = given[name] ?? (isId ? { schema: { type: 'integer', minimum: 1, maximum: 2147483647 } } : { schema: { type: 'string' } });
    return { name, in: 'path', required: true, schema: param.schema, ...(param.description ? { description: param.description } : {}) };
  });
}

function params(where: 'query' | 'header', given: Record<string, Param>) {
  return Object.entries(given).map(([name, p]) => ({
    name, in: where, required: !!p.required, schema: p.schema, ...(p.description ? { description: p.description } : {}),
  }));
}

function requestBody(body: NonNullable<Operation['body']>) {
  if ('content' in body && !('type' in body)) {
    const b = body as { content: Record<string, { schema: Schema }>; required?: boolean };
    return { required: b.required ?? true, content: b.content };
  }
  return { required: false, content: { 'application/json': { schema: body } } };
}

function operationId(route: RouteInfo): string {
  const words = route.path.split('/').filter(Boolean).map((part) => (part.startsWith(':') ? `by ${part.slice(1)}` : part));
  const camel = [route.method === 'WS' ? 'socket' : route.method.toLowerCase(), ...words].join(' ')
    .replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase());
  return camel.replace(/[^A-Za-z0-9]/g, '');
}

function sortByStatus(responses: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
