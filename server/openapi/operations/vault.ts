// The vault wing (issue 45): a user's own credentials, their grants and fill history, and the answers to fills
// waiting for approval. No answer carries a password or TOTP secret.
import { arr, bool, binary, id, input, json, noContent, nullable, obj, oneOfEnum, ref, str, time, type WingTable } from '../schema.ts';

const VALUE = (what: string) => nullable(str({ description: `${what} (at most 4 KB); sealed, never answered` }));
const FIELDS = {
  name: str({ minLength: 1 }),
  username: VALUE('The username'),
  password: VALUE('The password'),
  totp: VALUE('An otpauth://totp URI or a base32 key'),
  notes: nullable(str()),
  targets: arr(str(), { description: 'Origin patterns (https://*.example.com) or window patterns (window:<class>[:<title>])' }),
};

export const VAULT: WingTable = {
  tag: 'vault',
  description: "The credential vault: values go in, and never come back out.",
  schemas: {
    Credential: obj({
      id: id(), owner_id: id(), name: str(), username: str(), has_password: bool(), has_totp: bool(), targets: arr(str()), notes: str(),
      values_changed_at: time(), created_at: time(), updated_at: time(), grants: obj({ agent_ids: arr(id()), ask_each_time: bool() }),
    }),
    CredentialFill: obj({
      at: time(), agent_id: nullable(id()), thread_id: nullable(id()), field: str(), target: str(),
      outcome: str({ description: "'filled', 'refused: …', 'denied' …" }),
    }),
  },
  operations: {
    'GET /credentials': { summary: "The caller's credentials", responses: { 200: json(arr(ref('Credential'))) } },
    'POST /credentials': { summary: 'Keep a credential', body: input(FIELDS, ['name']), responses: { 201: json(ref('Credential'), 'Kept') } },
    'GET /credentials/:id': { summary: 'A credential (without its values)', responses: { 200: json(ref('Credential')) } },
    'PATCH /credentials/:id': { summary: 'Change a credential', body: input(FIELDS), responses: { 200: json(ref('Credential')) } },
    'DELETE /credentials/:id': { summary: 'Delete a credential', responses: { 204: noContent('Deleted') } },
    'PUT /credentials/:id/grants': {
      summary: 'Which agents may use the credential, and whether each use asks first',
      body: input({ agent_ids: arr(id()), ask_each_time: bool() }, ['agent_ids', 'ask_each_time']),
      responses: { 200: json(ref('Credential')) },
    },
    'GET /credentials/:id/fills': { summary: 'The last 200 uses of the credential, newest first', responses: { 200: json(arr(ref('CredentialFill'))) } },
    'POST /credential_approvals/:id': {
      summary: 'Allow or refuse a fill waiting for approval',
      body: input({ approve: bool() }, ['approve']),
      responses: { 200: json(obj({ state: oneOfEnum(['approved', 'denied']) })) },
      errors: [409],
    },
    'GET /credential_approvals/:id/screenshot': {
      summary: 'The screen when the fill was asked for', responses: { 200: binary('image/png', 'The screenshot') },
    },
  },
};
