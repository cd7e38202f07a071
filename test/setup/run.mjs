// Runs uvu suites like its CLI does, then runs registered teardowns (open servers and database
// pools would otherwise keep the process alive) and exits with uvu's code.
// Usage: node --import ./test/setup/register.mjs test/setup/run.mjs <dir> [pattern]
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';

const [dir = 'test', pattern] = process.argv.slice(2);
// Agent uids of their own: a test process stopping its agent 1's desktop must not end another's.
process.env.AGENT_UID_BASE ||= String(1_000_000 + (process.pid % 2000) * 1000);
// uvu has no timeouts: a hung test ends the run with a clear failure instead of stalling CI.
const limitMinutes = Number(process.env.TEST_RUN_TIMEOUT_MIN || 30);
setTimeout(() => {
  console.error(`\ntest run in ${dir} exceeded ${limitMinutes} minutes: stopped (a test is waiting forever)`);
  process.exit(1);
}, limitMinutes * 60_000).unref();
const { suites } = await parse(dir, pattern, { ignore: /setup|helpers|fixtures/ });
globalThis.__teardown = [];
await run(suites);
for (const fn of globalThis.__teardown.reverse()) await fn();
process.exit(process.exitCode ?? 0);
