// Runs uvu suites like its CLI does, then runs registered teardowns (open servers and database
// pools would otherwise keep the process alive) and exits with uvu's code.
// Usage: node --import ./test/setup/register.mjs test/setup/run.mjs <dir> [pattern]
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';

const [dir = 'test', pattern] = process.argv.slice(2);
const { suites } = await parse(dir, pattern, { ignore: /setup|helpers|fixtures/ });
globalThis.__teardown = [];
await run(suites);
for (const fn of globalThis.__teardown.reverse()) await fn();
process.exit(process.exitCode ?? 0);
