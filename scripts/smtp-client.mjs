// A minimal SMTP client for the bench and the soak: raw commands, so a caller's clock can start exactly at the
// final ".". No dependencies: the soak's load process imports it without the TypeScript loader.
import { connect } from 'node:net';

/** A minimal SMTP client: one connection, one command at a time, replies read to their last line. */
export async function smtpClient(port, name = 'bench.client') {
  const socket = connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let buffer = '';
  let waiting = null;
  socket.on('data', (d) => {
    buffer += d;
    const m = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffer);
    if (m && waiting) {
      const reply = buffer;
      buffer = '';
      const w = waiting;
      waiting = null;
      w(reply);
    }
  });
  const reply = () => new Promise((resolve) => (waiting = resolve));
  const send = async (text, expect) => {
    const r = reply();
    socket.write(text);
    const got = await r;
    if (!got.match(new RegExp(`(^|\\r\\n)${expect} `))) throw new Error(`expected ${expect}, got ${got.trim()}`);
    return got;
  };
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  await reply().then((g) => (g.startsWith('220') ? g : Promise.reject(new Error(g))));
  await send(`EHLO ${name}\r\n`, 250);
  return { send, close: () => socket.end('QUIT\r\n') };
}
