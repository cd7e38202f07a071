// `npm run bench`: runs each bench script as a child process, passes its human output through,
// collects its `BENCH_RESULT {...}` lines (scripts/bench-result.mjs), then prints one table of
// figure | value | reference | target and writes bench/results.json.
// Usage: node scripts/bench.mjs [name-filter...] — e.g. `npm run bench -- api memory`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Adding a bench is adding its file here.
const SCRIPTS = [
  'bench-first-load.mjs',
  'bench-phone.mjs',
  'bench-api.mjs',
  'bench-memory.mjs',
  'bench-realtime.mjs',
  'bench-desktop.mjs',
  'bench-fleet.mjs',
  'bench-sandbox.mjs',
  'bench-runner.mjs',
  'bench-mail.mjs',
  'bench-scheduler.mjs',
  'bench-audit.mjs',
  'bench-replay.mjs',
  'bench-vault.mjs',
  'bench-webhooks.mjs',
  'bench-push.mjs',
  'bench-sleep.mjs',
  'bench-storage.mjs',
  'bench-home-checkpoint.mjs',
  'bench-spawn.mjs',
];

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const chosen = filters.length ? SCRIPTS.filter((s) => filters.some((f) => s.includes(f))) : SCRIPTS;

function run(script) {
  if (!existsSync(join(here, script))) {
    console.log(`\n=== ${script}: not in this checkout, skipped`);
    return { script, code: 0, results: [] };
  }
  return new Promise((resolve) => {
    const results = [];
    const started = performance.now();
    console.log(`\n=== ${script}`);
    const child = spawn(process.execPath, ['--expose-gc', join(here, script)], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const m = /^BENCH_RESULT (\{.*\})\s*$/.exec(line);
        if (!m) console.log(line);
        else {
          try {
            results.push({ script, ...JSON.parse(m[1]) });
          } catch {
            console.log(line);
          }
        }
      }
    });
    child.on('close', (code) => {
      if (buffered) console.log(buffered);
      console.log(`=== ${script}: exit ${code} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      resolve({ script, code, results });
    });
  });
}

const runs = [];
for (const script of chosen) runs.push(await run(script));
const results = runs.flatMap((r) => r.results);

const fmt = (v, unit) => (v === null || v === undefined ? '—' : typeof v === 'number' ? `${v.toLocaleString('en')} ${unit}`.trim() : String(v));
const rows = [
  ['figure', 'value', 'reference', 'target'],
  ...results.map((r) => [r.name, fmt(r.value, r.unit), fmt(r.reference, r.unit), String(r.target ?? '')]),
];
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
const line = (row) => row.map((c, i) => (i === 1 || i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
console.log(`\n${line(rows[0])}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
for (const row of rows.slice(1)) console.log(line(row));
const failed = runs.filter((r) => r.code !== 0);
if (failed.length) console.log(`\nfailed: ${failed.map((r) => `${r.script} (exit ${r.code})`).join(', ')}`);

const out = join(here, '..', 'bench', 'results.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), scripts: runs.map(({ script, code }) => ({ script, code })), results }, null, 2) + '\n');
console.log(`\nwrote ${out}`);
process.exit(failed.length ? 1 : 0);
