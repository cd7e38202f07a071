// The New endpoint form's rules, apart from its markup: what it starts with, what it sends, and where the server's
// refusals belong. A 422's detail starts with its field ('url: example.invalid does not resolve'); it is shown as the
// server wrote it, beside that field, and whatever names no field goes to the top of the form.
import { detailOr, HttpError } from '../../../lib/http.ts';
import { EVENTS, type WebhookInput } from '../../../lib/webhooks-api.ts';

export type Draft = {
  url: string;
  /** Event types ticked, in any order; sent in the server's order. */
  events: string[];
  /** An agent's id as the select's value, or '' for all agents. */
  agent: string;
};
/** Messages by field; `form` holds what names no field. */
export type FieldErrors = Partial<Record<keyof Draft | 'form', string>>;

export const NEW_DRAFT: Draft = { url: '', events: [], agent: '' };

export function inputOf(draft: Draft): WebhookInput {
  return {
    url: draft.url.trim(),
    events: EVENTS.map((e) => e.type).filter((type) => draft.events.includes(type)),
    agent_id: draft.agent === '' ? null : Number(draft.agent),
  };
}

/** Only what needs no server: an empty address, no event ticked. The server judges the address itself. */
export function localErrors(input: WebhookInput): FieldErrors {
  const errors: FieldErrors = {};
  if (!input.url) errors.url = 'Enter the address to send events to';
  if (input.events.length === 0) errors.events = 'Choose one or more events';
  return errors;
}

/** The server's field names to the form's. */
const FIELDS = new Map<unknown, keyof Draft>([['url', 'url'], ['events', 'events'], ['agent_id', 'agent']]);
const NAMED = /^([a-z_]+):/;

/** A failed create as messages by field: each 422 message beside the field it names, the rest at the top. */
export function saveErrors(error: unknown): FieldErrors {
  if (!(error instanceof HttpError) || error.status !== 422) return { form: detailOr(error, 'Failed to create the endpoint') };
  const errors: FieldErrors = {};
  for (const { loc, msg } of detailItems(error.body)) {
    const field = FIELDS.get(NAMED.exec(msg)?.[1]) ?? FIELDS.get(loc?.[1]);
    const key = field ?? 'form';
    errors[key] = errors[key] ? `${errors[key]}; ${msg}` : msg;
  }
  return Object.keys(errors).length > 0 ? errors : { form: 'The endpoint was refused' };
}

/** `{detail: 'msg'}`, or a validation list `{detail: [{loc, msg}]}`. */
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
