// This wing's own route: the document itself.
import { json, type WingTable } from '../schema.ts';

export const OPENAPI: WingTable = {
  tag: 'openapi',
  description: 'This document.',
  operations: {
    'GET /openapi.json': {
      summary: 'This document (OpenAPI 3.1)',
      description: 'Generated from the route table once per process; cacheable for an hour, with an ETag.',
      responses: { 200: json({ type: 'object', required: ['openapi', 'info', 'paths'], description: 'An OpenAPI 3.1 document' }, 'The document') },
      noDatabase: true,
    },
  },
};
