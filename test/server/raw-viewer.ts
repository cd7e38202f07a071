// A second opinion on the desktop's pixels: a minimal RFB viewer that asks Xvnc for Raw only, the encoding
// with nothing to decode, and reads one whole screen. Tests compare our client's framebuffer (decoded from
// Hextile) with it.
import { connect } from 'node:net';

/** The whole screen once, as RGBA (alpha 255), with the bytes Xvnc sent for it after the handshake. */
export async function rawScreen(path: string, timeoutMs = 5000): Promise<{ width: number; height: number; data: Buffer; bytes: number }> {
  const sock = connect(path);
  let buffered = Buffer.alloc(0);
  let wake = () => {};
  sock.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    wake();
  });
  const failed = new Promise<never>((_, reject) => {
    sock.on('error', reject);
    setTimeout(() => reject(new Error(`no whole Raw screen within ${timeoutMs} ms`)), timeoutMs).unref();
  });
  const take = async (n: number) => {
    while (buffered.length < n) await Promise.race([new Promise<void>((r) => (wake = r)), failed]);
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    return out;
  };
  try {
    await take(12);
    sock.write('RFB 003.008\n');
    await take((await take(1))[0]); // the security types offered; the desktop's socket offers None
    sock.write(Buffer.from([1]));
    if ((await take(4)).readUInt32BE(0) !== 0) throw new Error('security None refused');
    sock.write(Buffer.from([1])); // shared
    const init = await take(24);
    const [width, height] = [init.readUInt16BE(0), init.readUInt16BE(2)];
    await take(init.readUInt32BE(20));
    // The pixel format our client asks for ([R,G,B,X]), Raw only, and the whole screen.
    sock.write(Buffer.from([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 0, 8, 16, 0, 0, 0]));
    sock.write(Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]));
    sock.write(Buffer.from([3, 0, 0, 0, 0, 0, width >> 8, width & 255, height >> 8, height & 255]));
    const data = Buffer.alloc(width * height * 4, 255);
    let bytes = 0;
    let covered = 0;
    while (covered < width * height) {
      const head = await take(4);
      if (head[0] !== 0) throw new Error(`expected a FramebufferUpdate, got message type ${head[0]}`);
      bytes += 4;
      for (let n = head.readUInt16BE(2); n > 0; n--) {
        const r = await take(12);
        const [x, y, w, h, encoding] = [r.readUInt16BE(0), r.readUInt16BE(2), r.readUInt16BE(4), r.readUInt16BE(6), r.readInt32BE(8)];
        if (encoding !== 0) throw new Error(`asked for Raw only, got encoding ${encoding}`);
        const pixels = await take(w * h * 4);
        bytes += 12 + pixels.length;
        for (let row = 0; row < h; row++) pixels.copy(data, ((y + row) * width + x) * 4, row * w * 4, (row + 1) * w * 4);
        covered += w * h;
      }
    }
    for (let i = 3; i < data.length; i += 4) data[i] = 255;
    return { width, height, data, bytes };
  } finally {
    sock.destroy();
  }
}
