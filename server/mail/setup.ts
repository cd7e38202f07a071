// Wiring for start.ts: the SMTP intake (listening on SMTP_PORT) and the outbound sender, hung on
// Services; close() stops both. What weakens mail's safety (no sender checks, no TLS) is said at start.
import type { Services } from '../services.ts';
import { MailSender } from './sender.ts';
import { SmtpIntake } from './smtp-intake.ts';

export async function startMail(services: Services): Promise<{ close: () => Promise<void> }> {
  const { config, db, bus, log } = services;
  const intake = new SmtpIntake({
    db, bus, log, dataDir: config.dataDir, onUpload: services.onUpload, storageQuota: () => config.agentStorageBytes, storage: services.storage,
    port: config.smtpPort, mailDomain: config.mailDomain, maxBytes: config.mailMaxBytes,
    auth: () => config.mailAuth, limits: config.mailLimits, tls: config.smtpTls, requireTls: config.smtpRequireTls,
  });
  await intake.listen();
  const sender = new MailSender({
    db, bus, log, dataDir: config.dataDir, mailDomain: config.mailDomain, relayUrl: config.smtpRelayUrl, relayInsecure: config.smtpRelayInsecure,
  });
  sender.start();
  services.smtp = intake;
  services.mailSender = sender;
  services.metrics
    ?.gauge({ name: 'aw_mail_throttled_total', type: 'counter', help: 'Recipients refused with 450 for the per-address or per-sender rate (this instance).',
      read: () => intake.counts.throttled })
    .gauge({ name: 'aw_mail_connections_refused_total', type: 'counter', help: 'SMTP connections refused with 421: too many from one address (this instance).',
      read: () => intake.counts.refusedConnections })
    .gauge({ name: 'aw_mail_held_total', type: 'counter', help: 'Mail stored but not run: unverified sender or over the hourly runs (this instance).',
      read: () => intake.counts.held });
  const tls = config.smtpTls
    ? `STARTTLS with ${config.smtpTls.certFile}${config.smtpRequireTls ? ' (required)' : ''}`
    : 'no certificate (SMTP_TLS_CERT): mail arrives unencrypted';
  log.info(`mail: receiving for @${config.mailDomain} on SMTP port ${intake.port}, ${tls}; sending to ${sender.delivery.describe}`);
  if (config.mailAuth === 'off') {
    log.error('mail: WARNING MAIL_AUTH=off: senders are not checked (SPF/DKIM/DMARC); '
      + 'anyone can write as an accepted address and start runs. Development only.');
  }
  if (config.smtpRelayInsecure && config.smtpRelayUrl) {
    log.error('mail: WARNING SMTP_RELAY_INSECURE=1: the relay\'s password may be sent without TLS.');
  }
  return {
    close: async () => {
      await sender.close();
      await intake.close();
    },
  };
}
