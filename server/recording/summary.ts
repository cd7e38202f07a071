// Builds a finished recording's summary from what is in the blob store: the action log, the transcript of its
// audio when a transcriber is configured (else the summary says why there is none), and a few keyframes for the
// model, spread over the demonstration. Reads only the recording's own folder (the server's, never the
// agent's home).
import { text } from 'node:stream/consumers';
import { withLocalCopy, type BlobStore } from '../storage/index.ts';
import type { RecordingRow } from './store.ts';
import type { StepImage } from '../threads/steps.ts';
import type { ActionLog } from './active-recording.ts';
import { describeAction, formatSummary, type Speech } from './action-format.ts';
import type { Transcriber } from './transcriber.ts';

/** Keyframes that go with the summary: the newest screenshots a model call carries are this many (runner). */
export const SUMMARY_KEYFRAMES = 3;

export type Summary = { text: string; images: StepImage[] };

export type SummaryContext = {
  /** The store the recording is in: stored paths (audio, step images) are its keys. */
  blobs: BlobStore;
  /** The recording's folder in it. */
  relDir: string;
  transcriber: Transcriber | null;
  signal?: AbortSignal;
  log: (msg: string) => void;
};

/** The recording's actions.json; null when there is none (or it cannot be read: the summary then has no actions). */
export async function readActionLog(blobs: BlobStore, relDir: string): Promise<ActionLog | null> {
  try {
    const read = await blobs.get(`${relDir}/actions.json`);
    return read ? (JSON.parse(await text(read.body)) as ActionLog) : null;
  } catch {
    return null;
  }
}

/** Evenly spread picks of at most `max` items, the first and the last among them. */
export function spread<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  if (max === 1) return [items[items.length - 1]];
  return Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))]);
}

async function transcribe(row: RecordingRow, ctx: SummaryContext): Promise<{ speech: Speech[] | null; why?: string }> {
  if (!row.audio_path || !row.audio_bytes) return { speech: null, why: 'no audio was recorded' };
  if (!ctx.transcriber) return { speech: null, why: 'no transcription server is configured' };
  try {
    const transcriber = ctx.transcriber;
    // The transcriber sends a file: the audio as one on this machine (a temporary copy of an S3 object).
    const t = await withLocalCopy(ctx.blobs, row.audio_path, (path) => transcriber.transcribe(path, row.audio_content_type ?? 'audio/ogg', ctx.signal));
    if (!t) return { speech: null, why: 'its audio is no longer stored' };
    return { speech: t.segments.map((s) => ({ at: Math.round(s.start * 1000), text: s.text })) };
  } catch (err) {
    ctx.log(`recording ${row.session_id}: transcription failed: ${(err as Error).message}`);
    return { speech: null, why: (err as Error).name === 'TranscriptionError' ? (err as Error).message : 'the transcription failed' };
  }
}

export async function buildSummary(row: RecordingRow, ctx: SummaryContext): Promise<Summary> {
  const log = await readActionLog(ctx.blobs, ctx.relDir);
  const actions = log?.actions ?? [];
  const stopped = row.stopped_at ? new Date(row.stopped_at).getTime() : Date.now();
  const { speech, why } = await transcribe(row, ctx);
  const numbered = actions.map((action, i) => ({ action, n: i + 1 })).filter((a) => a.action.keyframe);
  const chosen = spread(numbered, SUMMARY_KEYFRAMES);
  const text = formatSummary({
    durationMs: stopped - new Date(row.started_at).getTime(),
    screen: log?.screen ?? null,
    actions,
    speech,
    noTranscript: why,
    keyframesOf: chosen.map((c) => c.n),
  });
  const images = chosen.map(({ action, n }) => ({
    path: `${ctx.relDir}/${action.keyframe}`,
    caption: `Screenshot at action ${n} (${describeAction(action)}), taken as it began:`,
  }));
  return { text, images };
}
