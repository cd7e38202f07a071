// A new PGlite data directory is initialised (initdb) in a short-lived child process: initdb
// grows a process to ~850 MB and the heap it leaves behind is not given back, so the serving
// process would keep ~100 MB more for its whole life than after a restart.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const CHILD = `
const [module, dir] = process.argv.slice(1);
const { PGlite } = await import(module);
const pg = new PGlite(dir);
await pg.waitReady;
await pg.close();
`;

export function needsInit(dir: string): boolean {
  return !existsSync(join(dir, 'PG_VERSION'));
}

/** Runs initdb for `dir` in a child; resolves when the directory holds a database. */
export async function initInChild(dir: string): Promise<void> {
  const module = import.meta.resolve('@electric-sql/pglite');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, module, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 && !needsInit(dir)
      ? resolve()
      : reject(new Error(`initialising the database in ${dir} failed (${code}): ${err.trim()}`))));
  });
}
