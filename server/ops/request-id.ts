// Every request gets an id: the caller's X-Request-Id when it is a sane token, else a new one.
// It is echoed in the response header and carried by the request's log lines.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SANE = /^[A-Za-z0-9._:-]{1,64}$/;
const prefix = randomBytes(4).toString('hex');
let counter = 0;

export function assignRequestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SANE.test(given) ? given : `${prefix}-${(++counter).toString(36)}`;
}
