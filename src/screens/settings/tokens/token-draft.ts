// The New token form's rules, apart from its markup: its choices (the Admin scope for admins only), what it
// sends, and where the server's 422 details belong (each message starts with its field: 'scope: only admins…').
import { detailOr, HttpError } from '../../../lib/http.ts';
import type { ApiTokenInput } from '../../../lib/tokens-api.ts';
import type { ApiTokenScope } from '../../../lib/types.ts';

export type Draft = {
  name: string;
  scope: ApiTokenScope;
  /** Days as the select's value ('30'), or 'never'. */
  expires: string;
};
/** Messages by field; `form` holds what names no field. */
export type FieldErrors = Partial<Record<keyof Draft | 'form', string>>;

export const SCOPE_CHOICES: readonly { value: ApiTokenScope; label: string }[] = [
  { value: 'read', label: 'Read — GET requests only' },
  { value: 'write', label: 'Write — everything but admin' },
  { value: 'admin', label: 'Admin — everything' },
];
export const EXPIRY_CHOICES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: 'never', label: 'Never' },
] as const;

/** Read by default: the least a new token can do, widened only by choice. */
export const NEW_DRAFT: Draft = { name: '', scope: 'read', expires: '30' };

/** The server refuses an admin token to anyone else, so only an admin is offered one. */
export const scopeChoices = (canAdmin: boolean) => SCOPE_CHOICES.filter((c) => canAdmin || c.value !== 'admin');

export function inputOf(draft: Draft): ApiTokenInput {
  const days = draft.expires === 'never' ? null : Number(draft.expires);
  return { name: draft.name.trim(), scope: draft.scope, expires_in_days: days };
}

export const localErrors = (input: ApiTokenInput): FieldErrors => (input.name ? {} : { name: 'A token needs a name' });

/** The server's field names (in `msg` or `loc[1]`) to the form's. */
const FIELDS = new Map<unknown, keyof Draft>([['name', 'name'], ['scope', 'scope'], ['expires_in_days', 'expires']]);
const NAMED = /^([a-z_]+):\s*([\s\S]*)$/;

/** A failed create as messages by field: a 422's `{loc, msg}` beside the field it names, the rest at the top. */
export function saveErrors(error: unknown): FieldErrors {
  if (!(error instanceof HttpError) || error.status !== 422) return { form: detailOr(error, 'Failed to create the token') };
  const errors: FieldErrors = {};
  for (const { loc, msg } of detailItems(error.body)) {
    const named = NAMED.exec(msg);
    const byMessage = named ? FIELDS.get(named[1]) : undefined;
    const field = byMessage ?? FIELDS.get(loc?.[1]);
    if (field) errors[field] ??= sentence(byMessage && named ? named[2] : msg);
    else errors.form = errors.form ? `${errors.form}; ${msg}` : msg;
  }
  return Object.keys(errors).length > 0 ? errors : { form: 'The token was refused' };
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** `{detail: [{loc, msg}]}`, or a plain `{detail: 'msg'}`. */
function detailItems(body: unknown): { loc?: unknown[]; msg: string }[] {
  const detail = typeof body === 'object' && body !== null ? (body as { detail?: unknown }).detail : undefined;
  if (typeof detail === 'string') return [{ msg: detail }];
  if (!Array.isArray(detail)) return [];
  return detail.flatMap((item) => {
    if (typeof item === 'string') return [{ msg: item }];
    const { loc, msg } = (item ?? {}) as { loc?: unknown; msg?: unknown };
    return typeof msg === 'string' ? [{ loc: Array.isArray(loc) ? loc : undefined, msg }] : [];
  });
}
