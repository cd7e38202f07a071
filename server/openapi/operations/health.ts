// The health wing: whether the server and its database answer, and the Prometheus metrics.
import { json, media, obj, type WingTable } from '../schema.ts';

export const HEALTH: WingTable = {
  tag: 'health',
  description: 'Liveness and metrics.',
  operations: {
    'GET /health': {
      summary: 'Whether the server and its database answer',
      responses: { 200: json(obj({ ok: { const: true } })) },
    },
    'GET /metrics': {
      summary: 'Prometheus metrics (admins, or the METRICS_TOKEN)',
      description: 'Registered public (a METRICS_TOKEN is no user token); the route itself admits admins and the METRICS_TOKEN only.',
      security: 'metrics',
      responses: { 200: media('text/plain', { type: 'string', description: 'Prometheus text format 0.0.4' }, 'The metrics') },
      errors: [401, 403, 404],
    },
  },
};
