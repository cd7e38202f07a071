// The client's side of a connection to an RFB server the test speaks for: what the client writes goes to
// `onWrite`, what the test emits as 'data' is what the server sent. With builders for the server's bytes.
import { EventEmitter } from 'node:events';

export class Wire extends EventEmitter {
  destroyed = false;
  onWrite: (data: Buffer) => void = () => {};
  write(data: Uint8Array): boolean {
    this.onWrite(Buffer.from(data));
    return true;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

export const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
export const u32 = (n: number) => Buffer.from([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);

/** RFB 3.8 with security None, then ServerInit for a width×height screen named "t". */
export function serverHello(width: number, height: number): Buffer {
  const pixelFormat = Buffer.from([32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);
  return Buffer.concat([Buffer.from('RFB 003.008\n', 'latin1'), Buffer.from([1, 1]), u32(0), u16(width), u16(height), pixelFormat, u32(1), Buffer.from('t')]);
}

/** A rectangle header: position, size and encoding. */
export const rectHeader = (x: number, y: number, w: number, h: number, encoding: number) =>
  Buffer.concat([u16(x), u16(y), u16(w), u16(h), u32(encoding >>> 0)]);

/** A FramebufferUpdate of the given rectangles (each a header and its body). */
export const update = (...rects: Buffer[][]) => Buffer.concat([Buffer.from([0, 0]), u16(rects.length), ...rects.flat()]);

/** A FramebufferUpdate with one raw rectangle, every byte `fill`. */
export function rawUpdate(x: number, y: number, w: number, h: number, fill = 7): Buffer {
  return update([rectHeader(x, y, w, h, 0), Buffer.alloc(w * h * 4, fill)]);
}
