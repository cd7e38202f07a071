// Routes between instances of a fleet (issue 18), outside /api: nothing but a valid INTERNAL_SECRET signature
// opens them (401 otherwise, a person's bearer token included), once, on the instance it names; a body is
// refused at its end, before it is used, when it is not the one signed. The desktop relay is a WebSocket served here;
// a file for a desktop held here, removing an agent's desktop, and the stop and audio of a recording made
// here are plain signed HTTP calls (the recording's action tracker is in this instance's memory); a run's recording
// still being written here (a finished one is in the blob store, which the asking instance reads itself), or kept
// here because the store refused it, is streamed, its answer as it is.
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WebSocketServer } from 'ws';
import { DesktopUnavailable } from './errors.ts';
import type { FleetDesktops } from './place/fleet-desktops.ts';
import type { HomeFiles } from './keep/home-files.ts';
import { RelayRefused } from './place/internal-call.ts';
import { serveRelay } from './place/relay.ts';
import { serveSound } from './place/relayed-sound.ts';
import { verifySignature } from './place/signature.ts';
import { receiveRaw, type BodyCheck } from '../files/raw-body.ts';
import { MAX_UPLOAD_BYTES } from '../files/storage.ts';
import { HttpError, sendError } from '../http/errors.ts';
import type { Config } from '../config/index.ts';
import type { Log } from '../ops/log.ts';

type After = { from: string; seq: number } | undefined;
/**
 * What the routes between instances use. A recording's stop and audio are the recording wing's, which sits above
 * this one: they come in as the two calls made here.
 */
export type InternalDeps = {
  fleet?: FleetDesktops | null;
  config: Pick<Config, 'fleet'>;
  log: Log;
  recordings?: {
    stopHere(sessionId: string, auto: boolean, after: After): Promise<unknown>;
    audioHere(sessionId: string, req: IncomingMessage, contentType: string, after: After, check?: BodyCheck): Promise<unknown>;
  };
  /** The replays' wing, above this one too: a run's recording being written (or kept) here, streamed to the instance that asks. */
  replays?: { serveRecordingHere(runId: number, req: IncomingMessage, res: ServerResponse): Promise<void> };
  /** The files of the homes here (~/Desktop, ~/Downloads), for the instance a user asks (keep/home-files.ts). */
  homeFiles?: HomeFiles;
};

export const INTERNAL_PREFIX = '/internal/';

/** `body`: what the request's body must pass as it is read (the signature covers its hash). */
type Handler = (req: IncomingMessage, match: RegExpExecArray, deps: InternalDeps, fleet: FleetDesktops, body: BodyCheck) => Promise<unknown>;

const ROUTES: { method: string; pattern: RegExp; handler: Handler }[] = [
  {
    method: 'POST', pattern: /^\/internal\/desktops\/(\d+)\/files$/,
    handler: async (req, m, _deps, fleet, body) => {
      const name = new URL(req.url ?? '/', 'http://internal').searchParams.get('name');
      if (!name) throw new HttpError(400, 'name is required');
      const dir = await mkdtemp(join(tmpdir(), 'aw-internal-'));
      try {
        const file = join(dir, 'upload');
        await receiveRaw(req, file, { bytes: MAX_UPLOAD_BYTES, check: body }, 'File');
        return { path: await fleet.local.putFile(Number(m[1]), file, name) };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  },
  {
    method: 'GET', pattern: /^\/internal\/desktops\/(\d+)\/home-files$/,
    handler: async (_req, m, deps) => (deps.homeFiles?.listHere(Number(m[1])) ?? []).map((f) => ({ ...f, modifiedAt: f.modifiedAt.toISOString() })),
  },
  {
    method: 'DELETE', pattern: /^\/internal\/desktops\/(\d+)$/,
    handler: async (_req, m, _deps, fleet) => {
      await fleet.local.remove(Number(m[1]));
      return { ok: true };
    },
  },
  {
    method: 'POST', pattern: /^\/internal\/recordings\/([0-9a-f-]{36})\/stop$/,
    handler: async (req, m, deps) => deps.recordings!.stopHere(m[1], false, passedOnAfter(req)),
  },
  {
    method: 'POST', pattern: /^\/internal\/recordings\/([0-9a-f-]{36})\/audio$/,
    handler: async (req, m, deps, _fleet, body) =>
      deps.recordings!.audioHere(m[1], req, String(req.headers['x-audio-type'] ?? 'audio/ogg').slice(0, 100), passedOnAfter(req), body),
  },
];

/** One file of a home here, as it is (?folder=&name=): 404 when there is none. */
async function serveHomeFile(deps: InternalDeps, agentId: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = new URL(req.url ?? '/', 'http://internal').searchParams;
  const file = deps.homeFiles?.openHere(agentId, query.get('folder') ?? '', query.get('name') ?? '');
  if (!file) throw new HttpError(404, 'File not found');
  res.writeHead(200, {
    'Content-Type': 'application/octet-stream', 'Content-Length': String(file.bytes), 'Last-Modified': file.modifiedAt.toUTCString(),
  });
  await pipeline(file.body, res).catch(() => res.destroy());
}

/** Which instance passed a recording's stop or audio on, after how many input events (recordings.ts). */
function passedOnAfter(req: IncomingMessage): { from: string; seq: number } | undefined {
  const query = new URL(req.url ?? '/', 'http://internal').searchParams;
  const from = query.get('from');
  const seq = Number(query.get('seq'));
  return from && Number.isSafeInteger(seq) && seq >= 0 ? { from, seq } : undefined;
}

/** Answers an HTTP request under /internal/. */
export async function handleInternal(deps: InternalDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const fleet = deps.fleet;
  try {
    if (!fleet) throw new HttpError(404, 'Not found');
    const body = verifySignature(deps.config.fleet!.internalSecret, req, fleet.address);
    if (!body) throw new HttpError(401, 'Not an instance of this deployment');
    const path = (req.url ?? '/').split('?')[0];
    const replay = /^\/internal\/replays\/(\d+)\/recording$/.exec(path);
    if (replay && req.method === 'GET' && deps.replays) return await deps.replays.serveRecordingHere(Number(replay[1]), req, res);
    const homeFile = /^\/internal\/desktops\/(\d+)\/home-file$/.exec(path);
    if (homeFile && req.method === 'GET') return await serveHomeFile(deps, Number(homeFile[1]), req, res);
    for (const route of ROUTES) {
      const m = route.pattern.exec(path);
      if (!m || route.method !== req.method) continue;
      const answer = await route.handler(req, m, deps, fleet, body);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer ?? null));
      return;
    }
    throw new HttpError(404, 'Not found');
  } catch (err) {
    sendError(res, err, deps.log.error);
  }
}

/** The relay's WebSocket upgrades (/internal/desktops/<id>/rfb and …/sound); anything else under /internal/ is refused. */
export function internalUpgrades(deps: InternalDeps) {
  // The relayed client sends input and clipboard only (chunked to 60 KB); frames go the other way.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1024 * 1024 });
  const refuse = (socket: Duplex, status: number, detail: string) => {
    const body = JSON.stringify({ detail });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  return {
    count: () => wss.clients.size,
    async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
      const fleet = deps.fleet;
      if (!fleet) return refuse(socket, 404, 'Not found');
      if (!verifySignature(deps.config.fleet!.internalSecret, req, fleet.address)) return refuse(socket, 401, 'Not an instance of this deployment');
      const m = /^\/internal\/desktops\/(\d+)\/(rfb|sound)$/.exec(req.url ?? '');
      if (!m) return refuse(socket, 404, 'Not found');
      if (m[2] === 'sound') {
        // Only for a desktop already running here (the relay opened it first): sound never starts a desktop.
        const running = fleet.local.running(Number(m[1]));
        if (!running) return refuse(socket, 409, 'The desktop does not run on this instance');
        return void wss.handleUpgrade(req, socket, head, (ws) => serveSound(ws, running));
      }
      let desktop;
      try {
        desktop = await fleet.acquireHere(Number(m[1]));
      } catch (err) {
        if (err instanceof RelayRefused) return refuse(socket, 409, err.message);
        if (err instanceof DesktopUnavailable) return refuse(socket, 503, err.message);
        deps.log.error(`desktop relay ${m[1]}: ${(err as Error).message}`);
        return refuse(socket, 503, 'The desktop could not be started');
      }
      wss.handleUpgrade(req, socket, head, (ws) => serveRelay(ws, desktop));
    },
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}
