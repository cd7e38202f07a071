// A part of a recording as a Guacamole tunnel, the source SessionRecording 1.5.0 can play: given a Blob, its
// constructor never keeps it (its `recordingBlob` stays undefined) and throws reading its size. From a tunnel the
// library keeps the instructions in a Blob of its own and replays frames from it; it takes the last of them when
// the tunnel closes, so a part is played once its onload came. `prefix` goes first (a segment's screen size).
import Guacamole from 'guacamole-common-js';

const READ_BYTES = 1 << 20;
const OPEN = 1;
const CLOSED = 2;
/** Guacamole's status code for a protocol error (a recording that is not Guacamole instructions). */
const SERVER_ERROR = 0x0200;

export function recordingTunnel(blob: Blob, prefix = ''): Guacamole.Tunnel {
  const tunnel = new Guacamole.Tunnel();
  let stopped = false;
  const parser = new Guacamole.Parser();
  parser.oninstruction = (opcode, args) => tunnel.oninstruction?.(opcode, args);

  const read = async () => {
    // A new tunnel is CLOSED already: open it, so that closing it at the end is a change the library hears of.
    tunnel.setState(OPEN);
    const decoder = new TextDecoder();
    try {
      parser.receive(prefix);
      for (let offset = 0; offset < blob.size && !stopped; offset += READ_BYTES) {
        const bytes = await blob.slice(offset, offset + READ_BYTES).arrayBuffer();
        if (!stopped) parser.receive(decoder.decode(bytes, { stream: offset + READ_BYTES < blob.size }));
      }
    } catch (error) {
      stopped = true;
      tunnel.onerror?.(new Guacamole.Status(SERVER_ERROR, error instanceof Error ? error.message : String(error)));
      return;
    }
    if (!stopped) tunnel.setState(CLOSED);
  };

  tunnel.connect = () => void read();
  tunnel.disconnect = () => {
    stopped = true;
  };
  return tunnel;
}

/** One Guacamole instruction as text. */
export const instruction = (opcode: string, ...args: (string | number)[]) =>
  [opcode, ...args.map(String)].map((e) => `${e.length}.${e}`).join(',') + ';';
