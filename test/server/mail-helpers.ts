// Shared steps of the mail tests: an agent with an address, a real SMTP client (nodemailer) aimed
// at the test server's intake, and reading an agent's threads and a thread's mail through the API.
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { adminToken, call, newAgent, newUser, testServer } from './helpers.ts';

let n = 0;

/** A user's agent with a unique prefix and the given accept-from patterns. */
export async function mailAgent(patterns: string[] | null = ['@example.test']) {
  const user = await newUser();
  const agent = await newAgent(user.id);
  const admin = await adminToken();
  const prefix = `agent-${Date.now().toString(36)}-${++n}`;
  const res = await call(`/api/agents/${agent.id}/email-settings`, {
    method: 'PUT', token: admin, body: { email_prefix: prefix, email_accept_from_addresses: patterns },
  });
  if (res.status !== 200) throw new Error(`email settings: ${res.status} ${JSON.stringify(res.body)}`);
  return { user, agent, admin, prefix, address: res.body.email_address as string };
}

export async function smtpPort(): Promise<number> {
  return (await testServer()).parts.smtp!.port;
}

/** Sends through the test server's intake; resolves with nodemailer's info (250) or rejects with its error. */
export async function sendMail(message: SendMailOptions) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: await smtpPort(), secure: false, ignoreTLS: true, name: 'client.example.test' });
  try {
    return await transport.sendMail(message);
  } finally {
    transport.close();
  }
}

/** The error a refused send fails with (its responseCode and the command it failed at). */
export async function refusal(message: SendMailOptions): Promise<{ responseCode: number; command: string; response: string }> {
  try {
    await sendMail(message);
  } catch (err) {
    return err as any;
  }
  throw new Error('the message was accepted');
}

export async function threadsOf(agentId: number, token: string): Promise<any[]> {
  return (await call(`/api/agents/${agentId}`, { token })).body.threads;
}

export async function stepsOf(threadId: number, token: string): Promise<any[]> {
  return (await call(`/api/threads/${threadId}/steps?limit=100&offset=0`, { token })).body.steps;
}

export async function commMessages(threadId: number, admin: string): Promise<any[]> {
  const res = await call(`/api/admin/comm-messages?thread_id=${threadId}`, { token: admin });
  if (res.status !== 200) throw new Error(`comm-messages: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
