// Parts for the fault tests: a throwaway PostgreSQL of our own (initdb + pg_ctl in a temp dir, on a free
// port, never the machine's), a small disk of our own (a tmpfs, root only), the real server as a child
// process (to kill -9), a fake OpenAI-compatible model server, and waiting on conditions.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmdirSync, rmSync, statfsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HomeImages } from '../../server/desktop/contain/home-image.ts';

export async function until<T>(test: () => T | Promise<T>, ms: number, what: string, every = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await test();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const PG_BIN = ['/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((d) => existsSync(join(d, 'initdb')));
export const HAVE_POSTGRES_BINARIES = !!PG_BIN;

function run(cmd: string, args: string[], asPostgres: boolean): Promise<string> {
  const [file, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) =>
    execFile(file, argv, { timeout: 60_000 }, (err, out, errOut) =>
      (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${errOut || err.message}`)) : resolve(out))));
}

/** A PostgreSQL cluster of our own: started, restarted and stopped at will; removed by close(). */
export async function ownPostgres() {
  if (!PG_BIN) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) are not installed');
  const root = process.getuid?.() === 0; // initdb refuses root: run it as the postgres user
  const dir = mkdtempSync(join(tmpdir(), 'aw-fault-pg-'));
  if (root) chownSync(dir, ...(await ids('postgres')));
  const data = join(dir, 'data');
  const port = await freePort();
  await run(join(PG_BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], root);
  const pgCtl = (...args: string[]) => run(join(PG_BIN, 'pg_ctl'), ['-D', data, '-w', '-t', '30', ...args], root);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`;
  const pg = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => pgCtl('-o', options, '-l', join(dir, 'log'), 'start'),
    stop: () => pgCtl('-m', 'fast', 'stop'),
    async close() {
      await pg.stop().catch(() => {});
      HomeImages.unmountUnder(dir); // what a server killed with -9 left mounted
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
  await pg.start();
  return pg;
}

/** Only root may mount a filesystem. */
export const IS_ROOT = process.getuid?.() === 0;

/**
 * An empty tmpfs of `mb` MB mounted on a fresh temp folder, so that a test can fill a disk without filling the
 * machine's. Root only (mount(2)). close() unmounts it (lazily when something still holds a file open) and
 * removes the folder; it is also registered as a teardown of the test process, so it runs even when the test
 * throws before its own `finally`.
 */
export async function smallDisk(mb: number) {
  if (!IS_ROOT) throw new Error('mounting a tmpfs needs root');
  const dir = mkdtempSync(join(tmpdir(), 'aw-fault-disk-'));
  await run('mount', ['-t', 'tmpfs', '-o', `size=${mb}m,mode=0700`, 'tmpfs', dir], false);
  let mounted = true;
  const close = async () => {
    if (!mounted) return;
    mounted = false;
    await run('umount', [dir], false).catch(() => run('umount', ['-l', dir], false));
    rmdirSync(dir);
  };
  (globalThis as { __teardown?: (() => Promise<void>)[] }).__teardown?.push(close);
  return {
    dir,
    close,
    /** Bytes still free on it. */
    free: () => {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    },
  };
}

async function ids(user: string): Promise<[number, number]> {
  const [uid, gid] = await Promise.all([run('id', ['-u', user], false), run('id', ['-g', user], false)]);
  return [Number(uid), Number(gid)];
}

/** SECRETS_KEY of the servers these tests start (32 bytes, base64). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 'fault-and-fleet-tests').toString('base64');
/** VAULT_KEY of those servers: one deployment's instances share it, or the second refuses to start. */
export const TEST_VAULT_KEY = Buffer.alloc(32, 'vault-of-the-fault-and-fleet-tests').toString('base64');

/** The real server (server/main.ts) as a child process; resolves once it listens. */
export async function spawnServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', './test/setup/register.mjs', 'server/main.ts'], {
    env: {
      ...process.env, PORT: '0', SMTP_PORT: '0', STATIC_DIR: '', LOG_REQUESTS: '0', DESKTOP_PROVIDER: 'none',
      // Required with DATABASE_URL (calls between instances are signed with it); unused without.
      INTERNAL_SECRET: 'test-internal-secret-of-the-fault-and-fleet-tests',
      // The same on every instance of one database: it seals the secrets kept there and keys the audit chain.
      SECRETS_KEY: TEST_SECRETS_KEY, VAULT_KEY: TEST_VAULT_KEY, ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = await until(() => {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${out}`);
    return /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? null;
  }, 60_000, 'the server to listen', 100);
  return { child, url, output: () => out };
}

/**
 * An OpenAI-compatible chat endpoint. `reply` decides per request: a text answer, or null to hold the
 * request open (a model call in flight); `calls` keeps every request's last user text.
 */
export async function fakeModel(reply: (lastUser: string) => string | null) {
  const calls: string[] = [];
  const held: ServerResponse[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text || '{}');
    const users = (body.messages ?? []).filter((m: any) => m.role === 'user');
    const last = users.at(-1);
    const lastText = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    calls.push(lastText);
    const answer = reply(lastText);
    if (answer === null) {
      held.push(res);
      res.on('close', () => held.splice(held.indexOf(res), 1));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({
      id: 'chatcmpl-fault', object: 'chat.completion', model: 'fault-model',
      choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 2 },
    }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    held,
    close: () => {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}
