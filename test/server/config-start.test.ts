// A bad setting stops the real server's start at once: one line on stderr that names the variable, the value and
// what it must be, no stack trace, and a non-zero exit (server/main.ts, the config's one strict parser).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function startWith(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aw-config-start-'));
  const child = spawn(process.execPath, ['--import', './test/setup/register.mjs', 'server/main.ts'], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, STATIC_DIR: '', ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('exit', (code) => {
    rmSync(dataDir, { recursive: true, force: true });
    resolve({ code, stderr });
  }));
}

const BAD = [['PORT', 'abc'], ['SMTP_PORT', '-1'], ['AGENT_STORAGE_MB', 'lots']];

for (const [name, value] of BAD) {
  test(`${name}=${value} stops the start with one line naming ${name}`, async () => {
    const { code, stderr } = await startWith({ [name]: value });
    assert.is.not(code, 0);
    assert.is(stderr.trim(), `Agent Workspace cannot start: ${name} must be a whole number ≥ 0, not "${value}"`);
  });
}

test.run();
