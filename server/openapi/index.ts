// The OpenAPI 3.1 document of /api: the route table (paths, methods, auth levels) merged with a description table
// per wing (operations/<wing>.ts: parameters, bodies, answers). The door: the route, and the builder for tests.
//   schema.ts      the vocabulary the tables are written in (JSON Schema builders, Operation, WingTable)
//   components.ts  the error answers, the ways to authenticate, the records several wings share
//   document.ts    the builder; tables.ts lists the wings' tables; routes.ts serves the document
export { registerOpenApiRoutes } from './routes.ts';
export { buildOpenApi, openApiPath, routeKey, type OpenApiDocument } from './document.ts';
export { TABLES } from './tables.ts';
export type { Operation, WingTable } from './schema.ts';
