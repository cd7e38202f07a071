// The clipboard over the tunnel, both ways as UTF-8 blobs (the client library's string helpers mangle
// non-BMP text): outgoing text as one clipboard stream, incoming streams collected up to 1 MiB each.
import { encode } from './codec.ts';

const MAX_CLIPBOARD = 1024 * 1024;

/** The instructions that put `text` on the viewer's clipboard. */
export function clipboardInstructions(stream: number, text: string, blobChars: number): string {
  const data = Buffer.from(text, 'utf8').toString('base64');
  let out = encode('clipboard', stream, 'text/plain');
  for (let at = 0; at < data.length; at += blobChars) out += encode('blob', stream, data.slice(at, at + blobChars));
  return out + encode('end', stream);
}

/** Clipboard streams a viewer is sending; the caller decides whether the viewer may (control). */
export class ClipboardIn {
  private streams = new Map<string, { chunks: Buffer[]; size: number }>();

  begin(stream: string, mimetype: string | undefined): void {
    if (/^text\//.test(mimetype ?? '')) this.streams.set(stream, { chunks: [], size: 0 });
  }

  /** Takes a blob of a clipboard stream; returns the ack to send, or null for other streams. */
  blob(stream: string, base64: string | undefined): string | null {
    const entry = this.streams.get(stream);
    if (!entry) return null;
    const bytes = Buffer.from(base64 ?? '', 'base64');
    entry.size += bytes.length;
    if (entry.size > MAX_CLIPBOARD) {
      this.streams.delete(stream);
      return encode('ack', stream, 'Clipboard too large', 0x030d);
    }
    entry.chunks.push(bytes);
    return encode('ack', stream, 'OK', 0);
  }

  /** The text of a finished clipboard stream, or null when it was not one. */
  end(stream: string): string | null {
    const entry = this.streams.get(stream);
    this.streams.delete(stream);
    return entry ? Buffer.concat(entry.chunks).toString('utf8') : null;
  }
}
