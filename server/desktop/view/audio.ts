// The desktop's sound to one viewer: one raw PCM `audio` stream, opened with the first chunk. Audio that
// would wait behind a backlog is dropped (late sound is worthless), and a viewer that refuses the type
// (an error status in its ack) gets none.
import { encode } from './codec.ts';

/** Outside the 1..1000 cycle of image and clipboard streams, so it stays open beside them. */
export const AUDIO_STREAM = 1001;

export class AudioOut {
  private state: 'none' | 'open' | 'refused' = 'none';

  /** The instructions for one chunk, or null when it is dropped. */
  chunk(mimetype: string, pcm: Buffer, opts: { buffered: number; maxBuffered: number; blobChars: number }): string | null {
    if (this.state === 'refused' || opts.buffered > opts.maxBuffered / 4) return null;
    let out = '';
    if (this.state === 'none') {
      out = encode('audio', AUDIO_STREAM, mimetype);
      this.state = 'open';
    }
    // The player decodes each blob on its own: 16 base64 characters are 12 bytes, whole frames of any
    // raw PCM layout (1–2 bytes × 1–2 channels).
    const data = pcm.toString('base64');
    const chunk = Math.max(16, opts.blobChars - (opts.blobChars % 16));
    for (let at = 0; at < data.length; at += chunk) out += encode('blob', AUDIO_STREAM, data.slice(at, at + chunk));
    return out;
  }

  /** The client answers `audio` with OK, or with an error status when it cannot play the type. */
  ack(stream: string | undefined, status: string | undefined): void {
    if (stream === String(AUDIO_STREAM) && Number(status) >= 0x0100) this.state = 'refused';
  }
}
