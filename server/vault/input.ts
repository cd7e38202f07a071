// What a credential's body may hold (POST and PATCH /api/credentials): every key checked, a 422 naming the first
// field that is wrong (in its `loc` and at the start of its message). A value's text never appears in a message.
import { invalid } from '../http/errors.ts';
import { parseTarget } from './targets.ts';
import { parseTotp } from './totp.ts';

/** One value (username, password, TOTP secret, notes) at most 4 KB of UTF-8. */
export const MAX_VALUE_BYTES = 4096;
const MAX_NAME = 100;
const MAX_TARGETS = 50;

export type CredentialInput = {
  name?: string;
  username?: string;
  /** '' removes it. */
  password?: string;
  /** '' removes it. */
  totp?: string;
  /** Canonical pattern texts. */
  targets?: string[];
  notes?: string;
};

/** The body's keys that are set; `create` requires a name. */
export function parseCredentialInput(body: Record<string, unknown>, create: boolean): CredentialInput {
  const input: CredentialInput = {};
  if (body.name !== undefined || create) {
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (!name) throw bad('name', 'a credential needs a name');
    if (name.length > MAX_NAME) throw bad('name', `at most ${MAX_NAME} characters`);
    input.name = name;
  }
  for (const key of ['username', 'password', 'totp', 'notes'] as const) {
    const value = body[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw bad(key, 'must be text');
    if (Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES) throw bad(key, 'at most 4 KB');
    input[key] = value;
  }
  if (input.totp && !parseTotp(input.totp)) throw bad('totp', 'not an otpauth://totp URI or a base32 key');
  if (body.targets !== undefined) input.targets = parseTargets(body.targets);
  return input;
}

function parseTargets(value: unknown): string[] {
  if (!Array.isArray(value)) throw bad('targets', 'must be a list of origin or window patterns');
  if (value.length > MAX_TARGETS) throw bad('targets', `at most ${MAX_TARGETS}`);
  const texts: string[] = [];
  value.forEach((item, i) => {
    if (typeof item !== 'string' || !item.trim()) throw bad(`targets[${i}]`, 'must be an origin or window pattern');
    const target = parseTarget(item.trim());
    if ('error' in target) throw bad(`targets[${i}]`, target.error);
    if (!texts.includes(target.text)) texts.push(target.text);
  });
  return texts;
}

const bad = (field: string, msg: string) => invalid(field, `${field}: ${msg}`);
