// Entry point: config from the environment, database, migrations, listen, graceful shutdown.
import { mkdirSync } from 'node:fs';
import { loadConfig } from './config/index.ts';
import { openDb } from './db/db.ts';
import { start } from './start.ts';
import { createLog } from './ops/log.ts';
import { StartRefused } from './system/start-refused.ts';

// Everything the server writes (database, keys, uploads) is for its own user only.
process.umask(0o077);
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  // A bad setting: one line that names it, not a stack trace.
  console.error(`Agent Workspace cannot start: ${(err as Error).message}`);
  process.exit(1);
}
// Made here on both engines: with PostgreSQL the database lives elsewhere, but uploads, recordings and homes live here.
try {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
} catch (err) {
  console.error(`Agent Workspace cannot start: DATA_DIR ${config.dataDir} cannot be made (${(err as Error).message})`);
  process.exit(1);
}
const log = createLog(config.logFormat);
// Said before the slow part: a first start creates the PGlite database, which takes a while on a busy machine.
log.info(`Agent Workspace is starting: opening the database (${config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`})…`);
const db = await openDb({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const running = await start(config, db, log).catch((err) => {
  if (!(err instanceof StartRefused)) throw err;
  // A key that does not fit, a uid range another server holds: one line, and nothing made afresh.
  console.error(`Agent Workspace cannot start: ${err.message}`);
  process.exit(1);
});
log.info(`Agent Workspace listening on ${running.url} (database: ${db.engine}${db.engine === 'pglite' ? ` in ${config.dataDir}` : ''})`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, async () => {
    if (stopping) return process.exit(1);
    stopping = true;
    log.info(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await running.close();
    await db.close();
    process.exit(0);
  });
}
