// The mail the server writes for itself, through the relay of SMTP_RELAY_URL (or into the outbox folder): a user's
// link to choose a new password (the auth wing asks for it only when a relay is set), a webhook endpoint turned off.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config/index.ts';
import { createDelivery } from './transport.ts';

type MailConfig = Pick<Config, 'smtpRelayUrl' | 'smtpRelayInsecure' | 'dataDir' | 'mailDomain'>;
export type SystemMail = (to: string, subject: string, text: string) => Promise<void>;

export function systemMailer(config: MailConfig): SystemMail {
  const delivery = createDelivery(config.smtpRelayUrl, config.dataDir, { insecure: config.smtpRelayInsecure });
  return async (to, subject, text) => {
    await delivery.send({
      id: 0, from: `Agent Workspace <no-reply@${config.mailDomain}>`, to, subject, messageId: `<system-${randomUUID()}@${config.mailDomain}>`, text,
    });
  };
}

export function resetMailer(config: MailConfig) {
  const mail = systemMailer(config);
  return (to: string, link: string): Promise<void> => mail(to, 'Choose a new password for Agent Workspace',
    `Someone (we hope you) asked to choose a new password for ${to} on Agent Workspace:\n\n${link}\n\n`
      + 'The link works once, within an hour. If you did not ask for it, ignore this mail: your password stays as it is.\n');
}
