// The mail wing's door: what the rest of the server uses of it.
export { registerAdminMailRoutes } from './admin-routes.ts';
export { draftOutbound, queueNotice } from './comm-messages.ts';
export { AddressError, asciiAddress } from './idn.ts';
export type { MailSender } from './sender.ts';
export { registerEmailSettingsRoutes } from './settings-routes.ts';
export { startMail } from './setup.ts';
export { resetMailer, systemMailer, type SystemMail } from './reset-mail.ts';
export type { SmtpIntake } from './smtp-intake.ts';
