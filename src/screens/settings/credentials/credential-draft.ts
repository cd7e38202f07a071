// The credential form's rules, apart from its markup: what a new credential sends, which keys an edit
// sends (only the changed ones; an empty password or TOTP field means "keep", Remove means ""), the 4 KB
// limit checked before sending, and where the server's 422 details belong.
import type { CredentialInput } from '../../../lib/credentials-api.ts';
import { detailOr, HttpError } from '../../../lib/http.ts';
import type { Credential } from '../../../lib/types.ts';

export type FieldKey = keyof CredentialInput;
/** Messages by field; `form` holds what names no field. */
export type FieldErrors = Partial<Record<FieldKey | 'form', string>>;

export type Draft = {
  name: string;
  username: string;
  password: string;
  totp: string;
  /** One target per line, as typed. */
  targets: string;
  notes: string;
  removePassword: boolean;
  removeTotp: boolean;
};

const FIELD_KEYS: readonly FieldKey[] = ['name', 'username', 'password', 'totp', 'targets', 'notes'];
/** The server's limit for one value (server/vault/input.ts). */
export const MAX_VALUE_BYTES = 4096;

/** The secrets start empty: the server never sends them, and an empty field leaves them as they are. */
export function draftOf(credential?: Credential): Draft {
  return {
    name: credential?.name ?? '',
    username: credential?.username ?? '',
    password: '',
    totp: '',
    targets: credential?.targets.join('\n') ?? '',
    notes: credential?.notes ?? '',
    removePassword: false,
    removeTotp: false,
  };
}

export const targetList = (text: string): string[] => text.split('\n').map((line) => line.trim()).filter(Boolean);

/** A new credential's body: every key. */
export function inputOf(draft: Draft): CredentialInput {
  const { username, password, totp, notes } = draft;
  return { name: draft.name.trim(), username, password, totp, targets: targetList(draft.targets), notes };
}

/** An edit's body: the changed keys only; a secret is sent when typed, or as '' when Remove is ticked. */
export function changesOf(draft: Draft, original: Credential): Partial<CredentialInput> {
  const { name, targets } = inputOf(draft);
  const changes: Partial<CredentialInput> = {};
  if (name !== original.name) changes.name = name;
  if (draft.username !== original.username) changes.username = draft.username;
  if (draft.notes !== original.notes) changes.notes = draft.notes;
  if (targets.join('\n') !== original.targets.join('\n')) changes.targets = targets;
  if (draft.removePassword) changes.password = '';
  else if (draft.password) changes.password = draft.password;
  if (draft.removeTotp) changes.totp = '';
  else if (draft.totp) changes.totp = draft.totp;
  return changes;
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

/** The server would refuse these with a 422; saying so first keeps a long secret from crossing the wire. */
export function localErrors(input: Partial<CredentialInput>): FieldErrors {
  const errors: FieldErrors = {};
  if (input.name !== undefined && !input.name) errors.name = 'A credential needs a name';
  for (const key of ['username', 'password', 'totp', 'notes'] as const) {
    const value = input[key];
    if (value !== undefined && bytes(value) > MAX_VALUE_BYTES) errors[key] = 'At most 4 KB';
  }
  const long = input.targets?.find((target) => bytes(target) > MAX_VALUE_BYTES);
  if (long !== undefined) errors.targets = 'Each target at most 4 KB';
  return errors;
}

// 'targets[1]: may not have a path': the field, an optional index into what was sent, the reason.
const NAMED = /^([a-z_]+)(?:\[(\d+)\])?:\s*([\s\S]*)$/;

/** A failed save as messages by field: a 422's details beside the fields they name, the rest at the top. */
export function saveErrors(error: unknown, sentTargets: string[] = []): FieldErrors {
  if (!(error instanceof HttpError) || error.status !== 422) return { form: detailOr(error, 'Failed to save the credential') };
  const errors: FieldErrors = {};
  for (const message of detailMessages(error.body)) {
    const match = NAMED.exec(message);
    const field = FIELD_KEYS.find((key) => key === match?.[1]);
    if (!match || !field) {
      errors.form = errors.form ? `${errors.form}; ${message}` : message;
      continue;
    }
    // The index counts the targets sent (blank lines dropped), so the target itself says which line is meant.
    const target = match[2] === undefined ? undefined : sentTargets[Number(match[2])];
    errors[field] ??= target === undefined ? sentence(match[3]) : `${target}: ${match[3]}`;
  }
  return Object.keys(errors).length > 0 ? errors : { form: 'The credential was refused' };
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** `{detail: 'field: msg'}`, or the validation list `{detail: [{loc, msg}]}` the server's own checks send. */
function detailMessages(body: unknown): string[] {
  const detail = typeof body === 'object' && body !== null ? (body as { detail?: unknown }).detail : undefined;
  if (typeof detail === 'string') return [detail];
  if (!Array.isArray(detail)) return [];
  return detail.flatMap((item): string[] => {
    if (typeof item === 'string') return [item];
    const { loc, msg } = (item ?? {}) as { loc?: unknown[]; msg?: unknown };
    if (typeof msg !== 'string') return [];
    // A message that does not start with its field gets it from loc (['body', 'targets', 1] or ['body', 'name']).
    if (NAMED.test(msg) || !Array.isArray(loc) || typeof loc[1] !== 'string') return [msg];
    return [typeof loc[2] === 'number' ? `${loc[1]}[${loc[2]}]: ${msg}` : `${loc[1]}: ${msg}`];
  });
}
