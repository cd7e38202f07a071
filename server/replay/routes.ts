// The replay routes (issue 44). A run's replay is seen by its owner and admins (404 for anyone else, as threads),
// and by whoever holds a live share link, without signing in. A finished recording is in the blob store, which every
// instance reads; one still being written is a file on the instance that runs the run, and any other instance streams
// it from there (a signed internal GET), so a run's replay plays through every instance while it runs too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { idParam, type Api, type Ctx, type PublicCtx } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import { ownedThread } from '../agents/access.ts';
import type { Db } from '../db/db.ts';
import { recordAlone } from '../audit/audit.ts';
import { getRun, listRuns, visibleRun, type RunRow } from './runs-read.ts';
import { idleSpans, listMarkers, markerDetail } from './markers.ts';
import { createShare, getShare, liveShares, openShare, revokeShare, sharedReplayPath, SHARE_DEFAULT_S, SHARE_MAX_S, SHARE_MIN_S } from './shares.ts';
import { blobSource, fileSource, serveRecordingFile } from './recording-file.ts';
import type { BlobStore } from '../storage/index.ts';

export type ReplayDeps = {
  db: Db;
  /** $DATA_DIR/files: recordings being written here. */
  filesDir: string;
  /** Where finished recordings are. */
  blobs: BlobStore;
  instanceId: () => string;
  /** With a fleet: a signed GET to another instance, streamed (undefined when it is not alive). */
  openOnInstance?: ((instanceId: string, path: string, headers: Record<string, string>) => Promise<IncomingMessage | undefined>) | null;
  /** Where links point: PUBLIC_URL, else this server. */
  origin: () => string;
};

export const recordingInternalPath = (runId: number) => `/internal/replays/${runId}/recording`;

export function registerReplayRoutes(api: Api, deps: ReplayDeps) {
  api.get('/threads/:id/runs', async (ctx) => {
    const id = idParam(ctx.params.id, 'Thread not found');
    await ownedThread(ctx.db, ctx.user, id);
    return listRuns(ctx.db, id);
  });

  api.get('/runs/:id/replay', async (ctx) => {
    const run = await visibleRun(ctx.db, ctx.user, idParam(ctx.params.id, 'Run not found'));
    return replay(ctx, run, `/api/runs/${run.id}`, { can_share: true, shared: null });
  });
  api.get('/runs/:id/recording', async (ctx) => {
    const run = await visibleRun(ctx.db, ctx.user, idParam(ctx.params.id, 'Run not found'));
    await serveRecording(deps, ctx.req, ctx.res, run);
    return undefined;
  });
  api.get('/runs/:id/replay/markers/:index', async (ctx) => {
    const run = await visibleRun(ctx.db, ctx.user, idParam(ctx.params.id, 'Run not found'));
    return detail(ctx, run, ctx.params.index);
  });

  api.post('/runs/:id/replay/share', async (ctx) => {
    const run = await visibleRun(ctx.db, ctx.user, idParam(ctx.params.id, 'Run not found'));
    const { expires_in_s = SHARE_DEFAULT_S } = await ctx.body<{ expires_in_s?: unknown }>();
    if (typeof expires_in_s !== 'number' || !Number.isInteger(expires_in_s) || expires_in_s < SHARE_MIN_S || expires_in_s > SHARE_MAX_S) {
      throw invalid('expires_in_s', `expires_in_s must be a whole number of seconds from ${SHARE_MIN_S} (1 hour) to ${SHARE_MAX_S} (30 days)`);
    }
    const share = await createShare(ctx.db, run.id, ctx.user.id, expires_in_s);
    ctx.status = 201;
    return { id: share.id, url: deps.origin() + sharedReplayPath(share.token), expires_at: share.expires_at };
  });
  api.get('/runs/:id/replay/shares', async (ctx) => {
    const run = await visibleRun(ctx.db, ctx.user, idParam(ctx.params.id, 'Run not found'));
    return liveShares(ctx.db, run.id);
  });
  api.delete('/replay-shares/:id', async (ctx) => {
    const share = await getShare(ctx.db, idParam(ctx.params.id, 'Replay link not found'));
    if (!share) throw new HttpError(404, 'Replay link not found');
    await visibleRun(ctx.db, ctx.user, share.run_id).catch(() => {
      throw new HttpError(404, 'Replay link not found');
    });
    await revokeShare(ctx.db, share.id, share.run_id);
    return null;
  });

  // The link's holder, signed in or not: the replay alone, who shared it and until when.
  api.get('/replay-shares/by-token/:token', async (ctx) => {
    const { share, run } = await shared(ctx);
    await recordAlone(ctx.db, {
      action: 'replay.share_open', actor: { type: 'system', label: 'replay link' }, target: { type: 'run', id: run.id }, detail: { share_id: share.id },
    });
    return replay(ctx, run, `/api/replay-shares/by-token/${ctx.params.token}`, { can_share: false, shared: { by: share.by, expires_at: share.expires_at } });
  }, 'public');
  api.get('/replay-shares/by-token/:token/recording', async (ctx) => {
    const { run } = await shared(ctx);
    await serveRecording(deps, ctx.req, ctx.res, run);
    return undefined;
  }, 'public');
  api.get('/replay-shares/by-token/:token/markers/:index', async (ctx) => {
    const { run } = await shared(ctx);
    const found = await detail(ctx, run, ctx.params.index);
    // The link shows the run, not its owner's account: a model call's trace goes without whose it is.
    const trace = (found.detail as { trace?: Record<string, unknown> }).trace;
    if (trace) for (const key of ['owner_id', 'owner_email']) delete trace[key];
    return found;
  }, 'public');

  async function shared(ctx: PublicCtx) {
    const share = await openShare(ctx.db, ctx.params.token ?? '');
    const run = await getRun(ctx.db, share.run_id);
    if (!run) throw new HttpError(404, 'Replay link not found');
    return { share, run };
  }
}

/** The replay's JSON: the run, where its recording is, where in it the markers fall, and what to skip. */
async function replay(ctx: Ctx | PublicCtx, run: RunRow, base: string, access: { can_share: boolean; shared: object | null }) {
  const markers = await listMarkers(ctx.db, run);
  const ended = run.ended_at?.getTime() ?? Date.now();
  return {
    run_id: run.id, thread_id: run.thread_id, agent_id: run.agent_id, agent_name: run.agent_name, thread_name: run.thread_name,
    started_at: run.started_at, ended_at: run.ended_at, duration_ms: ended - run.started_at.getTime(), outcome: run.outcome, cost: run.cost,
    recording_url: run.recording_path ? `${base}/recording` : null, bytes: run.recording_path ? Number(run.recording_bytes) : 0,
    recording_offset_ms: run.recording_started_at ? Math.max(0, run.recording_started_at.getTime() - run.started_at.getTime()) : 0,
    recording_stopped: run.recording_stopped, idle: idleSpans(run, markers), ...access, markers,
  };
}

async function detail(ctx: Ctx | PublicCtx, run: RunRow, raw: string | undefined) {
  const index = raw !== undefined && /^\d{1,6}$/.test(raw) ? Number(raw) : -1;
  const found = index >= 0 ? await markerDetail(ctx.db, run, index) : null;
  if (!found) throw new HttpError(404, 'Marker not found');
  return found;
}

/**
 * The run's recording: from the blob store once it is finished, else from this instance's disk or streamed from the
 * instance that writes it (also a finished one the store did not take, which stays with that instance).
 */
export async function serveRecording(deps: ReplayDeps, req: IncomingMessage, res: ServerResponse, run: RunRow): Promise<void> {
  if (!run.recording_path) throw new HttpError(404, 'This run has no recording');
  const name = `run-${run.id}.guac`;
  const stored = run.recording_done ? await blobSource(deps.blobs, run.recording_path) : null;
  if (stored) return serveRecordingFile(req, res, { source: stored, done: true, name });
  if (run.instance_id === deps.instanceId() || !deps.openOnInstance) return serveHere(deps, req, res, run);
  const pass: Record<string, string> = {};
  for (const h of ['range', 'accept-encoding'] as const) if (typeof req.headers[h] === 'string') pass[h] = req.headers[h] as string;
  const answer = await deps.openOnInstance(run.instance_id, recordingInternalPath(run.id), pass);
  if (!answer) throw new HttpError(404, 'This recording is kept by a server instance that is not running');
  const head: Record<string, string> = {};
  for (const h of ['content-type', 'content-length', 'content-range', 'content-encoding', 'accept-ranges', 'vary', 'cache-control', 'content-disposition']) {
    const v = answer.headers[h];
    if (typeof v === 'string') head[h] = v;
  }
  res.writeHead(answer.statusCode ?? 502, head);
  await new Promise<void>((resolve) => {
    answer.pipe(res);
    answer.on('end', resolve);
    answer.on('error', () => (res.destroy(), resolve()));
    res.on('close', () => (answer.destroy(), resolve()));
  });
}

/** What the routes need, and the internal route's answer: a recording this instance keeps, for another instance. */
export class Replays {
  constructor(readonly deps: ReplayDeps) {}

  /** The signature was checked (desktop/internal-routes.ts). */
  async serveRecordingHere(runId: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const run = await getRun(this.deps.db, runId);
    if (!run || run.instance_id !== this.deps.instanceId() || !run.recording_path) throw new HttpError(404, 'No such recording here');
    await serveHere(this.deps, req, res, run);
  }
}

/** The recording's file on this instance's disk (being written here, or kept here when the store would not take it). */
async function serveHere(deps: ReplayDeps, req: IncomingMessage, res: ServerResponse, run: RunRow): Promise<void> {
  const source = run.recording_path && await fileSource(join(deps.filesDir, run.recording_path));
  if (!source) throw new HttpError(404, 'This recording is no longer available');
  await serveRecordingFile(req, res, { source, done: run.recording_done, name: `run-${run.id}.guac` });
}
