// Runs uvu suites like its CLI does, then runs registered teardowns (open servers and database
// pools would otherwise keep the process alive) and exits with uvu's code.
// Usage: node --import ./test/setup/register.mjs test/setup/run.mjs <dir> [pattern]
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';
import { appendFileSync } from 'node:fs';

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
if (process.env.TEST_TIMES) timeEachFile(process.env.TEST_TIMES);
await run(suites);
for (const fn of globalThis.__teardown.reverse()) await fn();
process.exit(process.exitCode ?? 0);

/**
 * TEST_TIMES=<file>: appends "seconds file" for each suite of a test file as it ends (add them up per file), to find
 * what makes CI slow. uvu queues a file's suites in UVU_QUEUE as [name, ...runners]; each runner is wrapped as queued.
 */
function timeEachFile(out) {
  const TIMED = Symbol('timed');
  const queue = [];
  queue.push = (group) => {
    const [name] = group;
    const timed = (runner) => Object.assign(async () => {
      const started = performance.now();
      try {
        return await runner();
      } finally {
        appendFileSync(out, `${((performance.now() - started) / 1000).toFixed(1)} ${name}\n`);
      }
    }, { [TIMED]: true });
    const wrap = (value) => (typeof value === 'function' && !value[TIMED] ? timed(value) : value);
    return Array.prototype.push.call(queue, new Proxy(group, { set: (target, key, value) => Reflect.set(target, key, wrap(value)) }));
  };
  globalThis.UVU_QUEUE = queue;
}
