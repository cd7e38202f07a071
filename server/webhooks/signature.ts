// Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of random bytes;
// each attempt is signed over `${id}.${timestamp}.${body}` with HMAC-SHA256 keyed by those bytes, so any Standard
// Webhooks library verifies it (test/server/webhooks.test.ts uses the `standardwebhooks` package).
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function newSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

/** The headers of one attempt; `timestamp` in seconds (the attempt's, so a receiver's freshness check passes a retry). */
export function signedHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` };
}
