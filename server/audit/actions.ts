// Every action the audit trail records, in one list: record() takes only these, and a test holds the README's
// table of actions ("The audit trail") to it, so the list, the code and the documentation cannot drift apart.
export const AUDIT_ACTIONS = [
  'auth.sign_up', 'auth.sign_in', 'auth.sign_out', 'auth.sign_in_failed', 'auth.lockout', 'auth.password_change',
  'auth.password_reset_link', 'auth.password_reset', 'auth.oidc_link', 'auth.oidc_logout',
  'user.role_change', 'user.update',
  'impersonation.request',
  'agent.create', 'agent.delete', 'agent.update', 'agent.run_state', 'agent.email_prefix', 'agent.accept_from',
  'schedule.create', 'schedule.update', 'schedule.delete',
  'desktop.take_control', 'desktop.hand_back', 'desktop.control_takeover', 'desktop.start_refused',
  'file.upload',
  'mail.draft', 'mail.edit', 'mail.approve', 'mail.delete', 'mail.send', 'mail.dead',
  'billing.spend_limit', 'billing.limit_stop',
  'recording.start', 'recording.stop', 'recording.summarize',
  'thread.delete',
  'run.help_request', 'run.guard_pause',
  'replay.share', 'replay.share_revoke', 'replay.share_open', 'replay.prune',
  'credential.create', 'credential.update', 'credential.delete', 'credential.grant', 'credential.revoke',
  'credential.fill', 'credential.refuse', 'credential.approval',
  'token.create', 'token.revoke',
  'webhook.create', 'webhook.update', 'webhook.delete',
  'push.subscribe', 'push.update', 'push.unsubscribe', 'help_link.use',
  'audit.prune',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
