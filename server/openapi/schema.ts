// The small vocabulary the description tables are written in: JSON Schema 2020-12 (what OpenAPI 3.1 uses) built
// by a few functions, and the shape of one route's description. Nothing here knows a route.

export type Schema = { [keyword: string]: unknown };

/** One answer of a route: its description, and its body by media type (none for 204 and 101). */
export type Answer = { description: string; content?: Record<string, { schema: Schema }>; headers?: Record<string, unknown> };

/** A query, path or header parameter: its schema, what it means, and whether it must come. */
export type Param = { schema: Schema; description?: string; required?: boolean };

/** The security a route's auth level implies, or another: 'session' (a signed-in session only), 'metrics'. */
export type SecurityOverride = 'session' | 'metrics';

/** What the route table cannot say about a route: written by hand, one per route, in operations/<wing>.ts. */
export type Operation = {
  summary: string;
  description?: string;
  /** Path parameters that are not ids (ids, `:id` or `:xxxId`, are positive integers unless given here). */
  path?: Record<string, Param>;
  query?: Record<string, Param>;
  headers?: Record<string, Param>;
  /** A JSON body's schema, or an Answer-like content map for other media (multipart, raw audio, forms). */
  body?: Schema | { content: Record<string, { schema: Schema }>; required?: boolean };
  /** The answers the handler itself gives: the success one, and any with a body of its own (an HTML page). */
  responses: Record<number, Answer>;
  /** Error statuses beyond those the route table implies (auth, ids, bodies, query values): `{detail}` answers. */
  errors?: number[];
  security?: SecurityOverride;
  /** Answered without the database (no 503 for it). */
  noDatabase?: boolean;
};

/** A wing's description table: its tag, its own schemas, and one operation per "METHOD /pattern" of the route table. */
export type WingTable = { tag: string; description: string; schemas?: Record<string, Schema>; operations: Record<string, Operation> };

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const num = (extra: Schema = {}): Schema => ({ type: 'number', ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const id = (extra: Schema = {}): Schema => int({ minimum: 1, ...extra });
export const time = (extra: Schema = {}): Schema => str({ format: 'date-time', ...extra });
export const oneOfEnum = (values: readonly (string | null)[], extra: Schema = {}): Schema => ({ enum: [...values], ...extra });
export const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
/** Any JSON value (a stored document whose shape is the model provider's, say). */
export const anything = (description: string): Schema => ({ description });
/** A free-form JSON object. */
export const record = (description: string): Schema => ({ type: 'object', description });

/** The schema, or null. */
export function nullable(schema: Schema): Schema {
  const out = { ...schema };
  if (typeof schema.type === 'string') out.type = [schema.type, 'null'];
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
  return out.type === schema.type && out.enum === schema.enum ? { anyOf: [schema, { type: 'null' }] } : out;
}

/** An object whose properties are all present, except those named in `optional`. */
export function obj(properties: Record<string, Schema>, optional: string[] = [], extra: Schema = {}): Schema {
  const required = Object.keys(properties).filter((key) => !optional.includes(key));
  return { type: 'object', properties, ...(required.length ? { required } : {}), ...extra };
}

/** An object's schema with more properties (all present unless named in `optional`). */
export function extend(base: Schema, properties: Record<string, Schema>, optional: string[] = []): Schema {
  const more = obj(properties, optional);
  const required = [...((base.required as string[]) ?? []), ...((more.required as string[]) ?? [])];
  return { ...base, properties: { ...(base.properties as object), ...properties }, required };
}

/** A request body's object: every property optional unless named in `required`. */
export function input(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

export const json = (schema: Schema, description = 'OK'): Answer => ({ description, content: { 'application/json': { schema } } });
export const noContent = (description: string): Answer => ({ description });
export const media = (type: string, schema: Schema, description: string): Answer => ({ description, content: { [type]: { schema } } });
export const binary = (type: string, description: string): Answer => media(type, { type: 'string', contentMediaType: type }, description);
export const query = (schema: Schema, description: string, required = false): Param => ({ schema, description, required });
