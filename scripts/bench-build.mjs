// The built app the browser and process benchmarks run: `node build.mjs --if-needed` into
// .tmp/bench-dist (not dist/, which a developer may be watching).
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUILD_DIR = join(ROOT, '.tmp', 'bench-dist');

export function ensureBuild() {
  const r = spawnSync(process.execPath, ['build.mjs', '--if-needed'], { cwd: ROOT, env: { ...process.env, BUILD_DIR }, stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error('build failed');
  return BUILD_DIR;
}
