// The one mail the server writes for itself: a user's link to choose a new password, through the relay of
// SMTP_RELAY_URL (the auth wing asks for it only when one is set).
import { randomUUID } from 'node:crypto';
import type { Config } from '../config/index.ts';
import { createDelivery } from './transport.ts';

export function resetMailer(config: Pick<Config, 'smtpRelayUrl' | 'smtpRelayInsecure' | 'dataDir' | 'mailDomain'>) {
  const delivery = createDelivery(config.smtpRelayUrl, config.dataDir, { insecure: config.smtpRelayInsecure });
  return async (to: string, link: string): Promise<void> => {
    await delivery.send({
      id: 0, from: `Agent Workspace <no-reply@${config.mailDomain}>`, to, subject: 'Choose a new password for Agent Workspace',
      messageId: `<reset-${randomUUID()}@${config.mailDomain}>`,
      text: `Someone (we hope you) asked to choose a new password for ${to} on Agent Workspace:\n\n${link}\n\n`
        + 'The link works once, within an hour. If you did not ask for it, ignore this mail: your password stays as it is.\n',
    });
  };
}
