// The Guacamole protocol gateway: one WebSocket tunnel per viewer (guacamole-common-js's WebSocketTunnel),
// fed from the desktop's shared framebuffer. Per viewer:
// - first `0.,36.<uuid>;` (the tunnel opens and learns its uuid), then name, size, a full frame, sync;
// - afterwards frames of coalesced dirty rectangles as PNG (img + ≤8064-char blobs + end, mask 14 = OVER;
//   12 = SRC would blank the canvas) and CopyRect as copy (mask 14), each frame closed by sync;
// - flow control: the next frame waits for the viewer's sync ack; meanwhile changes only grow the viewer's
//   dirty region, so a slow viewer gets fewer, coalesced frames instead of a queue;
// - the tunnel's internal ping is echoed (without it the client drops after 15 s), `nop` after 5 s of
//   silence keeps the client's own keep-alive going;
// - clipboard both ways as UTF-8 blobs (the client library's string helpers mangle non-BMP text);
// - the desktop's sound, when it has any, as one raw PCM `audio` stream per viewer; audio that would wait
//   behind a backlog is dropped (late sound is worthless), and a viewer that refuses the type gets none;
// - mouse, keys and clipboard are taken only from the viewer holding control: enforced here; the
//   controller's mouse and keys are also emitted as 'input' (agentId, DesktopInput) for recordings.
// - with several instances (a fleet), control is one per desktop across them: a change is published on the bus
//   (TOPICS.desktopControlNote), and a take or give-up for a viewer connected to another instance is passed to it there.
// This file holds the tickets, the per-desktop sessions and control; a viewer's concerns are split into
// guac-viewer.ts (the tunnel), guac-frames.ts (flow control), guac-input.ts (input gating),
// guac-clipboard.ts and guac-audio.ts. services.ts holds the one gateway of a server.
import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { HttpError } from '../../http/errors.ts';
import { DesktopSession } from './session.ts';
import { Viewer, type Ticket } from './viewer.ts';
import { DesktopUnavailable } from '../errors.ts';
import { statusOf } from '../../system/status-error.ts';
import { INPUT_ANSWER_MS } from '../rfb/client.ts';
import type { Desktop, DesktopInput, Desktops } from '../types.ts';
import type { ControlEvent, GatewayOptions } from './ports.ts';
import { TOPICS, type ControlNote, type ControlReply, type ControlRequest } from '../../realtime/topics.ts';
import type { Bus } from '../../realtime/bus.ts';

export type { ControlEvent, GatewayOptions } from './ports.ts';

/** The tunnel's WebSocket route; the ticket is in the path because the client appends '?' + its data. */
export const TUNNEL_ROUTE = '/desktop/tunnel/:ticket';
export const TICKET_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;
export const tunnelUrl = (ticket: string) => `/api/desktop/tunnel/${ticket}`;

const CONTROL_REPLY_MS = 3000;

export class GuacGateway extends EventEmitter<{ input: [agentId: number, input: DesktopInput]; control: [agentId: number, control: ControlEvent] }> {
  private tickets = new Map<string, Ticket>();
  private sessions = new Map<Desktop, DesktopSession<Viewer>>();
  readonly options: Required<GatewayOptions>;
  /** This gateway among the instances' gateways. */
  private readonly id = randomUUID();
  /** The viewer of another instance holding control of an agent's desktop. */
  private remoteControl = new Map<number, { from: string; sessionId: string }>();
  private replies = new Map<string, (reply: ControlReply) => void>();
  private subscribed = false;

  constructor(
    private manager: Pick<Desktops, 'acquire'>,
    readonly publish: Bus['publish'],
    readonly log: (msg: string) => void,
    options: GatewayOptions = {},
  ) {
    super();
    this.options = {
      frameInterval: options.frameInterval ?? 66,
      answerWindow: options.answerWindow ?? INPUT_ANSWER_MS,
      nopInterval: options.nopInterval ?? 5000,
      maxBuffered: options.maxBuffered ?? 1024 * 1024,
      blobChars: options.blobChars ?? 8064,
      ticketTtl: options.ticketTtl ?? 60_000,
    };
  }

  /** A short-lived, single-use ticket for one tunnel of this user to this agent's desktop. */
  issueTicket(userId: number, agentId: number, name: string): { ticket: string; sessionId: string } {
    const now = Date.now();
    for (const [key, t] of this.tickets) if (t.expires < now) this.tickets.delete(key);
    const ticket = randomBytes(24).toString('base64url');
    const sessionId = randomUUID();
    this.tickets.set(ticket, { userId, agentId, sessionId, name, expires: now + this.options.ticketTtl });
    return { ticket, sessionId };
  }

  /** Checks and spends the ticket, makes sure the desktop runs, and returns how to serve the socket. */
  async open(ticket: string): Promise<(ws: WebSocket) => void> {
    const t = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!t || t.expires < Date.now()) throw new HttpError(403, 'Invalid or expired desktop ticket');
    let desktop: Desktop;
    try {
      desktop = await this.manager.acquire(t.agentId);
    } catch (err) {
      if (err instanceof DesktopUnavailable) throw new HttpError(503, err.message);
      throw err;
    }
    return (ws: WebSocket) => {
      let session = this.sessions.get(desktop);
      if (!session) {
        session = new DesktopSession(this, desktop, () => this.sessions.delete(desktop), (v) => this.noteControl(desktop.agentId, v?.id ?? null));
        this.sessions.set(desktop, session);
      }
      session.add(new Viewer(session, ws, t));
    };
  }

  private session(agentId: number): DesktopSession<Viewer> | null {
    for (const s of this.sessions.values()) if (s.desktop.agentId === agentId && !s.disposed) return s;
    return null;
  }

  /**
   * Gives control of the agent's desktop to one viewer (take) or gives it up. Only a connected viewer of
   * the same user can hold control; taking it from another viewer leaves that one read-only.
   */
  setControl(agentId: number, sessionId: string, userId: number, take: boolean): { session_id: string; control: boolean } {
    const session = this.session(agentId);
    const viewer = session && [...session.viewers].find((v) => v.id === sessionId);
    if (!session || !viewer || viewer.userId !== userId) throw new HttpError(404, 'Viewer session not found');
    if (take) session.setController(viewer);
    else if (session.controller === viewer) session.setController(null);
    return { session_id: sessionId, control: session.controller === viewer };
  }

  /** Connected viewers (here) and who holds control (here or on another instance), for the status endpoint. */
  describe(agentId: number): { viewers: number; control: string | null } {
    const s = this.session(agentId);
    return { viewers: s?.viewers.size ?? 0, control: s?.controller?.id ?? this.remoteControl.get(agentId)?.sessionId ?? null };
  }

  /** Shares control with the gateways of other instances over the bus (createGateway calls it once). */
  share(subscribe: Bus['subscribe']): void {
    if (this.subscribed) return;
    this.subscribed = true;
    subscribe(TOPICS.desktopControlNote, (p) => this.onNote(p));
    subscribe(TOPICS.desktopControlRequest, (p) => this.onRequest(p));
    subscribe(TOPICS.desktopControlReply, (p) => this.replies.get(p.request)?.(p));
  }

  /** setControl for a viewer connected here or, with a fleet, to another instance (asked over the bus). */
  async setControlAnywhere(agentId: number, sessionId: string, userId: number, take: boolean): Promise<{ session_id: string; control: boolean }> {
    const session = this.session(agentId);
    if (!this.subscribed || [...(session?.viewers ?? [])].some((v) => v.id === sessionId)) return this.setControl(agentId, sessionId, userId, take);
    const request = randomUUID();
    const reply = await new Promise<ControlReply | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), CONTROL_REPLY_MS);
      this.replies.set(request, (r) => (clearTimeout(timer), resolve(r)));
      const ask: ControlRequest = { from: this.id, request, agent_id: agentId, session_id: sessionId, user_id: userId, take };
      this.publish(TOPICS.desktopControlRequest, ask);
    }).finally(() => this.replies.delete(request));
    if (!reply?.result) throw new HttpError(reply?.status ?? 404, reply?.detail ?? 'Viewer session not found');
    return reply.result;
  }

  private noteControl(agentId: number, sessionId: string | null): void {
    if (sessionId) this.remoteControl.delete(agentId);
    if (this.subscribed) this.publish(TOPICS.desktopControlNote, { from: this.id, agent_id: agentId, session_id: sessionId });
  }

  private onNote(note: ControlNote): void {
    if (note.from === this.id) return;
    if (note.session_id) {
      this.remoteControl.set(note.agent_id, { from: note.from, sessionId: note.session_id });
      // One controller per desktop: a viewer on another instance took it from ours.
      this.session(note.agent_id)?.setController(null);
    } else if (this.remoteControl.get(note.agent_id)?.from === note.from) {
      this.remoteControl.delete(note.agent_id);
    }
  }

  private onRequest(r: ControlRequest): void {
    if (r.from === this.id) return;
    const session = this.session(r.agent_id);
    if (![...(session?.viewers ?? [])].some((v) => v.id === r.session_id)) return; // another instance's viewer, or none
    let reply: ControlReply;
    try {
      reply = { request: r.request, result: this.setControl(r.agent_id, r.session_id, r.user_id, r.take) };
    } catch (err) {
      reply = { request: r.request, status: statusOf(err)?.status ?? 500, detail: (err as Error).message };
    }
    this.publish(TOPICS.desktopControlReply, reply);
  }
}
