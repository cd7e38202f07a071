// The mail wing: an agent's e-mail settings (admins) and a thread's communication messages with the approval
// actions on an outbound draft: edit, queue for sending, delete (spec section 4 "Outbound message").
import { arr, bool, id, input, int, json, noContent, nullable, obj, oneOfEnum, query, ref, str, time, type WingTable } from '../schema.ts';

const IDN = nullable(obj({
  unicode: str({ description: 'The address with its domain in Unicode' }), mixed_scripts: nullable(arr(str(), { description: 'Scripts a label mixes' })),
}, [], { description: 'For an address with an IDN domain (xn--), else null' }));

const SETTINGS = {
  email_prefix: nullable(str({ description: 'The part before @' })),
  email_accept_from_addresses: nullable(arr(str(), { description: 'name@example.com, @example.com, *.example.com or prefix-*@example.com' })),
};

export const MAIL: WingTable = {
  tag: 'mail',
  description: "Agents' e-mail addresses and the messages their threads send and receive.",
  schemas: {
    EmailSettings: obj({ ...SETTINGS, mail_domain: str(), email_address: nullable(str()) }),
    CommMessage: obj({
      id: id(), role: oneOfEnum(['inbound', 'outbound']), outbound_state: nullable(oneOfEnum(['success', 'requires_approval', 'queued', 'dead'])),
      text: str(), files: arr(str(), { description: 'File names' }), created_at: time(), from_address: str(), to_address: str(), subject: str(),
      attempts: int({ minimum: 0 }), last_error: nullable(str()), sent_at: nullable(time()), sender_verified: nullable(bool()),
      sender_auth: nullable(str()), held_reason: nullable(oneOfEnum(['unverified', 'rate'])), to_idn: IDN, from_idn: IDN,
    }),
  },
  operations: {
    'GET /agents/:id/email-settings': { summary: "The agent's e-mail settings (admins)", responses: { 200: json(ref('EmailSettings')) } },
    'PUT /agents/:id/email-settings': {
      summary: "Set the agent's e-mail prefix and accepted senders (admins)",
      body: input({ email_prefix: SETTINGS.email_prefix, email_accept_from_addresses: nullable(arr(str(), { maxItems: 200 })) }),
      responses: { 200: json(ref('EmailSettings')) },
    },
    'GET /admin/comm-messages': {
      summary: "A thread's communication messages, oldest first (admins)",
      query: { thread_id: query(id(), 'The thread', true) },
      responses: { 200: json(arr(ref('CommMessage'))) },
      errors: [404],
    },
    'POST /admin/comm-messages/:id/update-text': {
      summary: "Edit a draft's text (admins)",
      body: input({ text: str({ minLength: 1, maxLength: 100_000 }) }, ['text']),
      responses: { 200: json(ref('CommMessage')) },
      errors: [409],
    },
    'POST /admin/comm-messages/:id/queue': {
      summary: 'Queue a draft for sending (admins)', responses: { 200: json(ref('CommMessage')) }, errors: [409],
    },
    'DELETE /admin/comm-messages/:id': { summary: 'Delete a draft (admins)', responses: { 204: noContent('Deleted') }, errors: [409] },
  },
};
