// The mail settings' parts that need more than a number: the relay's URL and the intake's certificate pair.
import { resolve } from 'node:path';
import type { Env } from './parse.ts';

export type SmtpTls = { certFile: string; keyFile: string } | null;

export type MailLimits = {
  /** RCPTs one client address may give per minute; past it 450 4.7.1. */
  perIpPerMinute: number;
  /** RCPTs one envelope sender may give one agent per minute; past it 450 4.7.1. */
  perSenderPerMinute: number;
  /** Runs mail may start per agent per hour; later mail is stored but waits for the owner. */
  runsPerAgentPerHour: number;
  /** Open SMTP connections one client address may hold; past it 421. */
  connectionsPerIp: number;
  /** An SMTP connection idle this long is closed (ms). */
  idleMs: number;
};

export function relayUrl(value: string | undefined): string | null {
  if (!value) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('SMTP_RELAY_URL is not a URL (smtp://user:pass@host:587 or smtps://…)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_RELAY_URL must be smtp:// or smtps://, not ${url.protocol}//`);
  return value;
}

export function smtpTls(env: Env): SmtpTls {
  const cert = env.SMTP_TLS_CERT?.trim();
  const key = env.SMTP_TLS_KEY?.trim();
  if (!cert && !key) return null;
  if (!cert || !key) throw new Error('SMTP_TLS_CERT and SMTP_TLS_KEY go together: set both (PEM file paths) or neither');
  return { certFile: resolve(cert), keyFile: resolve(key) };
}
