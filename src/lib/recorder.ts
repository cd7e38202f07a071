// Microphone recording for demonstrations: asks for the microphone only (no camera, no screen) and records
// it with MediaRecorder as Ogg Opus where the browser can, else WebM (spec §7). Leaves out uploading
// (audio-upload.ts) and any UI. The browser's media parts are injectable for tests.

/** In order of preference; the first the browser supports is used. */
export const AUDIO_TYPES = ['audio/ogg;codecs=opus', 'audio/ogg', 'audio/webm;codecs=opus', 'audio/webm'];
/** What the server assumes when the recording says nothing (spec §7). */
export const DEFAULT_AUDIO_TYPE = 'audio/ogg';
/** MediaRecorder hands over data this often, so a tab that dies mid-recording loses little. */
const TIMESLICE_MS = 1000;

/** The preferred type the browser records, or '' to let it choose. */
export function pickMimeType(isTypeSupported: (type: string) => boolean): string {
  return AUDIO_TYPES.find((type) => {
    try {
      return isTypeSupported(type);
    } catch {
      return false;
    }
  }) ?? '';
}

export type MediaEnv = {
  getUserMedia: (constraints: MediaStreamConstraints) => Promise<MediaStream>;
  MediaRecorder: typeof MediaRecorder;
};

export type Recording = {
  /** The recording's content type (never empty). */
  readonly mimeType: string;
  /** Stops recording and the microphone; resolves with all the audio. */
  stop(): Promise<Blob>;
};

function browserMedia(): MediaEnv {
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') {
    throw new Error('This browser cannot record audio');
  }
  return { getUserMedia: (c) => navigator.mediaDevices.getUserMedia(c), MediaRecorder };
}

/** Asks for the microphone and starts recording it. Rejects when access is refused. */
export async function recordMicrophone(env: MediaEnv = browserMedia()): Promise<Recording> {
  const stream = await env.getUserMedia({ audio: true, video: false });
  const type = pickMimeType((t) => env.MediaRecorder.isTypeSupported(t));
  let recorder: MediaRecorder;
  try {
    recorder = new env.MediaRecorder(stream, type ? { mimeType: type } : undefined);
  } catch (error) {
    stream.getTracks().forEach((t) => t.stop());
    throw error;
  }
  const chunks: Blob[] = [];
  recorder.ondataavailable = (event) => {
    if (event.data.size > 0) chunks.push(event.data);
  };
  recorder.start(TIMESLICE_MS);
  const mimeType = () => recorder.mimeType || type || DEFAULT_AUDIO_TYPE;
  let stopped: Promise<Blob> | null = null;
  return {
    get mimeType() {
      return mimeType();
    },
    stop() {
      return (stopped ??= new Promise<Blob>((resolve) => {
        const finish = () => {
          stream.getTracks().forEach((t) => t.stop());
          resolve(new Blob(chunks, { type: mimeType() }));
        };
        if (recorder.state === 'inactive') return finish();
        // The last dataavailable comes before stop.
        recorder.addEventListener('stop', finish, { once: true });
        recorder.stop();
      }));
    },
  };
}
