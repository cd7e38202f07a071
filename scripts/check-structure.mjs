// The tree's structural rules, checked in `npm test` (stage "structure"):
// - no import cycles in server/ or src/, type-only imports included (TypeScript's own pre-processor lists
//   every import, `import type` too, which a bundler's metafile leaves out);
// - server/ is a kernel (KERNEL) that imports no wing, wings (every other folder) that each keep their own
//   rooms, and the composition root (the files at the top: start.ts, app.ts, …): from outside a wing only its
//   index.ts is imported (a wing over ten files must have one), and no two top-level rooms import each other
//   in a loop (a folder-level knot);
// - only server/config/ reads process.env;
// - no source line over 160 characters.
// Prints one line per finding and a closing "N passed, N failed" over the checks. `--root DIR` checks another
// tree (the structure tests plant a bad import in a copy of this one).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const rootAt = process.argv.indexOf('--root');
const ROOT = rootAt > 0 ? resolve(process.argv[rootAt + 1]) : resolve(dirname(new URL(import.meta.url).pathname), '..');
/** The server's kernel: what every wing may use, knowing no feature. */
const KERNEL = ['http', 'db', 'ops', 'realtime', 'files', 'system', 'models', 'config', 'config.ts'];
const WING_INDEX_ABOVE = 10;
const MAX_LINE = 160;
const SOURCE = /\.(ts|tsx|mjs|js|css)$/;

/** Every file below dir (relative to ROOT), skipping build output and dependencies. */
function files(dir) {
  const out = [];
  if (!existsSync(join(ROOT, dir))) return out;
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (['node_modules', 'dist', 'test-results', 'playwright-report', '.tmp'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else out.push(path);
  }
  return out;
}

/** The relative imports of a module (type-only ones too), resolved to files of the tree. */
function importsOf(file, known) {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  const out = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    const base = join(dirname(file), fileName);
    const hit = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => known.has(c));
    if (hit) out.push(hit);
  }
  return out;
}

/** Strongly connected components of more than one module (or a module importing itself): Tarjan's. */
export function cycles(graph) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  const visit = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!meta.has(w)) {
        visit(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) visit(v);
  return found;
}

function checkCycles() {
  const problems = [];
  for (const dir of ['server', 'src']) {
    const modules = files(dir).filter((f) => /\.tsx?$/.test(f));
    const known = new Set(modules);
    const graph = new Map(modules.map((m) => [m, importsOf(m, known)]));
    for (const component of cycles(graph)) problems.push(`import cycle in ${dir}/ (${component.length} files): ${component.join(' ⇄ ')}`);
  }
  return problems;
}

/** server/'s import graph: file → the files it imports. */
function serverGraph() {
  const modules = files('server').filter((f) => /\.tsx?$/.test(f));
  const known = new Set(modules);
  return new Map(modules.map((m) => [m, importsOf(m, known)]));
}

/** The top-level room of a server file: its folder under server/, or the file itself at the top. */
const roomOf = (file) => relative('server', file).split('/')[0];
const isFolder = (file) => relative('server', file).includes('/');
const isKernel = (file) => KERNEL.includes(roomOf(file));

function checkKernel() {
  const problems = [];
  for (const [file, imports] of serverGraph()) {
    if (!isKernel(file)) continue;
    for (const target of imports) {
      if (!isKernel(target)) problems.push(`${file} imports ${target}: the kernel imports no wing`);
    }
  }
  return problems;
}

function checkWingDoors() {
  const problems = [];
  const graph = serverGraph();
  const wings = new Map();
  for (const file of graph.keys()) if (isFolder(file) && !isKernel(file)) wings.set(roomOf(file), [...(wings.get(roomOf(file)) ?? []), file]);
  for (const [wing, members] of wings) {
    const door = join('server', wing, 'index.ts');
    if (members.length > WING_INDEX_ABOVE && !members.includes(door)) problems.push(`server/${wing}/: ${members.length} files and no index.ts`);
  }
  for (const [file, imports] of graph) {
    for (const target of imports) {
      const wing = roomOf(target);
      if (!wings.has(wing) || roomOf(file) === wing) continue;
      const door = join('server', wing, 'index.ts');
      if (wings.get(wing).includes(door) && target !== door) problems.push(`${file} imports ${target}: from outside server/${wing}/ only its index.ts`);
    }
  }
  return problems;
}

function checkKnots() {
  const rooms = new Map();
  for (const [file, imports] of serverGraph()) {
    const from = roomOf(file);
    if (!rooms.has(from)) rooms.set(from, []);
    for (const target of imports) if (roomOf(target) !== from && !rooms.get(from).includes(roomOf(target))) rooms.get(from).push(roomOf(target));
  }
  return cycles(rooms).map((knot) => `server/ rooms that import each other in a loop: ${knot.join(' ⇄ ')}`);
}

function checkEnv() {
  const problems = [];
  for (const file of files('server').filter((f) => f.endsWith('.ts') && !f.startsWith(join('server', 'config') + '/'))) {
    readFileSync(join(ROOT, file), 'utf8').split('\n').forEach((line, i) => {
      if (/process\.env\b/.test(line)) problems.push(`${file}:${i + 1}: reads process.env (only server/config/ may)`);
    });
  }
  return problems;
}

function checkLines() {
  const problems = [];
  const roots = ['build.mjs', 'playwright.config.ts'].filter((f) => existsSync(join(ROOT, f)));
  const tracked = ['server', 'src', 'test', 'e2e', 'scripts', 'styles'].flatMap(files).concat(roots);
  for (const file of tracked.filter((f) => SOURCE.test(f))) {
    readFileSync(join(ROOT, file), 'utf8').split('\n').forEach((line, i) => {
      if ([...line].length > MAX_LINE) problems.push(`${file}:${i + 1}: ${[...line].length} characters (at most ${MAX_LINE})`);
    });
  }
  return problems;
}

const checks = {
  'import cycles': checkCycles, 'the kernel imports no wing': checkKernel, 'a wing is entered by its index.ts': checkWingDoors,
  'no knot between server rooms': checkKnots, 'process.env outside config/': checkEnv, [`lines over ${MAX_LINE} characters`]: checkLines };
let failed = 0;
for (const [name, check] of Object.entries(checks)) {
  const problems = check();
  if (problems.length) failed++;
  console.log(`${problems.length ? '✘' : '✓'} ${name}${problems.length ? `: ${problems.length}` : ''}`);
  for (const p of problems.slice(0, 40)) console.log(`  ${relative('.', p)}`);
  if (problems.length > 40) console.log(`  … and ${problems.length - 40} more`);
}
console.log(`${Object.keys(checks).length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
