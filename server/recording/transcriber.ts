// Speech to text over an OpenAI-compatible /v1/audio/transcriptions (OpenAI, a local whisper server…):
// multipart with the audio file, model and response_format verbose_json, whose segments carry start and
// end in seconds. Settings: config.recording.transcribe (TRANSCRIBE_BASE_URL, none: no transcriber;
// TRANSCRIBE_MODEL, whisper-1; TRANSCRIBE_API_KEY). One attempt per recording, no retries: a failure is
// said in the summary instead.
import { openAsBlob } from 'node:fs';

export type Segment = { start: number; end: number; text: string };
export type Transcript = { text: string; segments: Segment[] };

export type Transcriber = {
  readonly model: string;
  transcribe(path: string, contentType: string, signal?: AbortSignal): Promise<Transcript>;
};

export type TranscriberOptions = {
  /** Server root, with or without /v1. */
  baseUrl: string;
  /** @default 'whisper-1' */
  model?: string;
  apiKey?: string;
  /** @default 10 minutes */
  timeoutMs?: number;
  fetch?: typeof fetch;
};

export class TranscriptionError extends Error {
  override name = 'TranscriptionError';
}

/** The file name tells the server the container (it goes by the extension, not the part's type). */
export function audioExtension(contentType: string): string {
  const type = contentType.toLowerCase();
  if (type.includes('webm')) return 'webm';
  if (type.includes('ogg') || type.includes('opus')) return 'ogg';
  if (type.includes('mp4') || type.includes('m4a') || type.includes('aac')) return 'm4a';
  if (type.includes('mpeg') || type.includes('mp3')) return 'mp3';
  if (type.includes('wav')) return 'wav';
  return 'bin';
}

export function createTranscriber(options: TranscriberOptions): Transcriber {
  const base = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const url = `${base}/v1/audio/transcriptions`;
  const model = options.model || 'whisper-1';
  const doFetch = options.fetch ?? fetch;
  return {
    model,
    async transcribe(path, contentType, signal) {
      const form = new FormData();
      const type = contentType.split(';')[0].trim() || 'application/octet-stream';
      form.append('file', await openAsBlob(path, { type }), `audio.${audioExtension(contentType)}`);
      form.append('model', model);
      form.append('response_format', 'verbose_json');
      form.append('timestamp_granularities[]', 'segment');
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 600_000);
      const res = await doFetch(url, {
        method: 'POST',
        body: form,
        headers: options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {},
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      }).catch((err) => {
        throw new TranscriptionError(`the transcription server did not answer (${(err as Error).message})`);
      });
      const text = await res.text();
      if (!res.ok) throw new TranscriptionError(`the transcription server answered HTTP ${res.status}${errorMessage(text)}`);
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        throw new TranscriptionError('the transcription server answered something other than JSON');
      }
      const segments: Segment[] = Array.isArray(body?.segments)
        ? body.segments
            .filter((s: any) => typeof s?.text === 'string' && Number.isFinite(s?.start))
            .map((s: any) => ({ start: Number(s.start), end: Number.isFinite(s.end) ? Number(s.end) : Number(s.start), text: s.text.trim() }))
        : [];
      const whole = typeof body?.text === 'string' ? body.text.trim() : '';
      // A server without segments still gave the words: they count from the start.
      if (!segments.length && whole) segments.push({ start: 0, end: 0, text: whole });
      return { text: whole, segments };
    },
  };
}

function errorMessage(text: string): string {
  try {
    const message = JSON.parse(text)?.error?.message;
    return typeof message === 'string' && message ? `: ${message.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}
