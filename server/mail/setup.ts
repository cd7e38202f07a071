// Wiring for start.ts: the SMTP intake (listening on SMTP_PORT) and the outbound sender, hung on
// Services; close() stops both.
import type { Services } from '../services.ts';
import { MailSender } from './sender.ts';
import { SmtpIntake } from './smtp-intake.ts';

export async function startMail(services: Services): Promise<{ close: () => Promise<void> }> {
  const { config, db, bus, log } = services;
  const intake = new SmtpIntake({
    db, bus, log, dataDir: config.dataDir, onUpload: services.onUpload, storageQuota: () => config.agentStorageBytes, storage: services.storage,
    port: config.smtpPort, mailDomain: config.mailDomain, maxBytes: config.mailMaxBytes,
  });
  await intake.listen();
  const sender = new MailSender({ db, bus, log, dataDir: config.dataDir, mailDomain: config.mailDomain, relayUrl: config.smtpRelayUrl });
  sender.start();
  services.smtp = intake;
  services.mailSender = sender;
  log.info(`mail: receiving for @${config.mailDomain} on SMTP port ${intake.port}; sending to ${sender.delivery.describe}`);
  return {
    close: async () => {
      await sender.close();
      await intake.close();
    },
  };
}
