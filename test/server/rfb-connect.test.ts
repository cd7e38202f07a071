// The desktop's RFB connection against a server that has bound its Unix socket but does not listen yet, as Xvnc
// does for a moment at start (python3 here: Node binds and listens in one call): refused, then tried again.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RfbClient } from '../../server/desktop/rfb/client.ts';
import { serverHello } from '../unit/helpers/rfb-wire.ts';

const connect = suite('rfb: connecting as the server starts');

/** Binds `path`, listens only after `ms`, then sends an RFB hello of 64×48 and reads until closed. */
function lateServer(path: string, ms: number) {
  const script = `
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
print('bound', flush=True)
time.sleep(float(sys.argv[2]) / 1000)
s.listen(1)
c, _ = s.accept()
c.sendall(bytes.fromhex(sys.argv[3]))
while c.recv(65536): pass
`;
  const child = spawn('python3', ['-c', script, path, String(ms), serverHello(64, 48).toString('hex')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bound = new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`python3 exited ${code}`)));
  });
  return { child, bound };
}

connect('a socket bound but not yet listening is refused by connect, and waited for by connectWhenListening', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-rfb-connect-'));
  const path = join(dir, 'rfb.sock');
  const server = lateServer(path, 400);
  try {
    await server.bound;
    const refused = await RfbClient.connect({ path }, { timeout: 2000 }).then(() => null, (err) => err);
    assert.is(refused?.code, 'ECONNREFUSED', String(refused));
    const client = await RfbClient.connectWhenListening(path, { timeout: 10_000 });
    assert.equal([client.width, client.height, client.name], [64, 48, 't']);
    client.close();
  } finally {
    server.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

connect('connectWhenListening gives up at its timeout with the refusal', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-rfb-connect-'));
  const path = join(dir, 'rfb.sock');
  const server = lateServer(path, 60_000);
  try {
    await server.bound;
    const started = Date.now();
    const err = await RfbClient.connectWhenListening(path, { timeout: 300 }).then(() => null, (e) => e);
    assert.is(err?.code, 'ECONNREFUSED', String(err));
    assert.ok(Date.now() - started >= 300, 'tried until the timeout');
  } finally {
    server.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

connect.run();
