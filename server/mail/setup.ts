// The mail wing's start, for start.ts: the SMTP intake (listening on SMTP_PORT) and the outbound sender, returned
// with close(), which stops both. What weakens mail's safety (no sender checks, no TLS) is said at start.
import type { Config } from '../config/index.ts';
import type { Db } from '../db/db.ts';
import type { UploadHook } from '../files/storage.ts';
import type { Log } from '../ops/log.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Bus } from '../realtime/bus.ts';
import type { AgentStorage } from '../agents/storage.ts';
import type { BlobStore } from '../storage/index.ts';
import { MailSender } from './sender.ts';
import { SmtpIntake } from './smtp-intake.ts';

export type MailDeps = {
  config: Config; db: Db; bus: Bus; log: Log; blobs: BlobStore; storage: AgentStorage; onUpload?: UploadHook; metrics?: Metrics;
};
export type Mail = { smtp: SmtpIntake; mailSender: MailSender; close: () => Promise<void> };

export async function startMail(deps: MailDeps): Promise<Mail> {
  const { config, db, bus, log } = deps;
  const intake = new SmtpIntake({
    db, bus, log, blobs: deps.blobs, onUpload: deps.onUpload, storageQuota: () => config.agentStorageBytes, storage: deps.storage,
    port: config.smtpPort, mailDomain: config.mailDomain, maxBytes: config.mailMaxBytes,
    auth: () => config.mailAuth, limits: config.mailLimits, tls: config.smtpTls, requireTls: config.smtpRequireTls,
  });
  await intake.listen();
  const sender = new MailSender({
    db, bus, log, dataDir: config.dataDir, mailDomain: config.mailDomain, relayUrl: config.smtpRelayUrl, relayInsecure: config.smtpRelayInsecure,
  });
  sender.start();
  deps.metrics
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
    smtp: intake,
    mailSender: sender,
    close: async () => {
      await sender.close();
      await intake.close();
    },
  };
}
