// What a tool is and what it may use while it runs. A ToolInputError goes back to the model as an
// is_error tool result (the model can correct itself); any other error ends the run.
import type { Db } from '../../db/db.ts';
import type { Bus } from '../../realtime/bus.ts';
import type { Desktop, PerformAction } from '../../desktop/index.ts';
import type { ToolDefinition } from '../../models/types.ts';

export type AgentInfo = { id: number; owner_id: number; name: string; email_prefix: string | null };

export type ToolContext = {
  db: Db;
  bus: Bus;
  agent: AgentInfo;
  threadId: number;
  signal: AbortSignal;
  mailDomain: string;
  /** MAIL_SMTPUTF8: recipients may have a non-ASCII local part. */
  smtpUtf8?: boolean;
  /** The agent's desktop (its size, and acquire() per action: cheap while it runs, restarts it after a
   * crash) and the action performer; null when desktops are off. */
  computer: { width: number; height: number; acquire: () => Promise<Desktop>; perform: PerformAction } | null;
  /** The credentials granted to the agent (issue 45) and the fill that types one; absent: no vault. */
  credentials?: CredentialsPort;
  /** Runs a sub-conversation on the task and returns its final answer (absent inside a sub-agent). */
  runSubAgent?: (task: string) => Promise<string>;
};

/** A credential as the model is told of it: never a value. */
export type GrantedCredential = { name: string; targets: string[]; fields: string[] };

/** The vault as a run reaches it: what was granted, and the fill (an Error named FillRefused: nothing was typed). */
export type CredentialsPort = {
  granted: GrantedCredential[];
  fill(name: string, field: string): Promise<string>;
};

/** `pause`: the run stops after this call and waits for a person (ask_for_help). */
export type ToolOutput = { text: string; image?: Buffer; pause?: { question: string } };

export type Tool = {
  name: string;
  /** The JSON-Schema definition sent to the model; null for the computer tool (declared by the provider). */
  definition: ToolDefinition | null;
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
  /** One line for the chat feed, e.g. 'computer: left_click at 640,400'. */
  describe(input: Record<string, unknown>): string;
};

export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

export const str = (v: unknown, max = 100_000): string | null => (typeof v === 'string' && v.length <= max ? v : null);
export const short = (text: string, n = 60) => (text.length > n ? text.slice(0, n - 1) + '…' : text);
