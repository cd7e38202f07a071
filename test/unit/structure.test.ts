// The structure check's server rules (scripts/check-structure.mjs) catch what they are for: each test plants one bad
// import (or removes a door) in a copy of this tree's server/ and finds the check failing with the line that names it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const copies: string[] = [];

function copyOfServer(): string {
  const root = mkdtempSync(join(tmpdir(), 'aw-structure-'));
  copies.push(root);
  cpSync('server', join(root, 'server'), { recursive: true });
  return root;
}

function check(root: string): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, ['scripts/check-structure.mjs', '--root', root], { encoding: 'utf8' });
  return { status: run.status, out: run.stdout };
}

const pristine = check(copyOfServer()).out;

function planted(file: string, line: string): { status: number | null; out: string } {
  const root = copyOfServer();
  appendFileSync(join(root, file), `\n${line}\n`);
  return check(root);
}

test('a kernel file that imports a wing fails, naming both', () => {
  const finding = 'server/http/router.ts imports server/agents/agents.ts: the kernel imports no wing';
  assert.not.ok(pristine.includes(finding));
  const { status, out } = planted('server/http/router.ts', "import '../agents/agents.ts';");
  assert.is(status, 1);
  assert.ok(out.includes(finding), out);
});

test('a part of a wing imported from outside it, past its index.ts, fails', () => {
  const finding = 'server/threads/threads.ts imports server/desktop/view/viewer.ts: from outside server/desktop/ only its index.ts';
  assert.not.ok(pristine.includes(finding));
  const { status, out } = planted('server/threads/threads.ts', "import '../desktop/view/viewer.ts';");
  assert.is(status, 1);
  assert.ok(out.includes(finding), out);
});

test('a wing over ten files without an index.ts fails', () => {
  const root = copyOfServer();
  rmSync(join(root, 'server/desktop/index.ts'));
  const { status, out } = check(root);
  assert.is(status, 1);
  assert.match(out, /server\/desktop\/: \d+ files and no index\.ts/);
});

test('two top-level rooms that import each other are a knot, even without a file cycle', () => {
  // The audit trail is below the threads; a part of it that reached up into them closes a loop of folders.
  const { status, out } = planted('server/audit/actions.ts', "import type {} from '../threads/steps.ts';");
  assert.is(status, 1);
  const knot = out.split('\n').find((line) => line.includes('rooms that import each other in a loop'));
  assert.ok(knot && knot.includes('audit') && knot.includes('threads'), out);
  assert.not.ok(pristine.split('\n').some((line) => line.includes('in a loop') && line.includes('audit')));
});

test.after(() => {
  for (const root of copies) rmSync(root, { recursive: true, force: true });
});

test.run();
