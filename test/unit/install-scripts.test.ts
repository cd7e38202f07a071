// A clean `npm install` prints no warning (issue 42): every installed package with an install script is one the
// project reviewed in package.json's allowScripts, so npm has nothing to warn about (and, once npm blocks
// unreviewed scripts, nothing to skip).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

/** Every package under node_modules (scoped ones too) whose package.json declares an install script. */
function packagesWithInstallScripts(dir = 'node_modules'): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      for (const inner of readdirSync(join(dir, name))) found.push(...withScript(join(dir, name, inner), `${name}/${inner}`));
    } else found.push(...withScript(join(dir, name), name));
  }
  return found;
}

function withScript(path: string, name: string): string[] {
  const manifest = join(path, 'package.json');
  if (!existsSync(manifest)) return [];
  const { scripts = {} } = JSON.parse(readFileSync(manifest, 'utf8'));
  const nested = existsSync(join(path, 'node_modules')) ? packagesWithInstallScripts(join(path, 'node_modules')) : [];
  return [...(INSTALL_SCRIPTS.some((s) => s in scripts) ? [name] : []), ...nested];
}

test('every installed package with an install script is reviewed in allowScripts', () => {
  const { allowScripts = {} } = JSON.parse(readFileSync('package.json', 'utf8'));
  const reviewed = (name: string) => Object.keys(allowScripts).some((key) => key === name || key.startsWith(`${name}@`));
  const found = packagesWithInstallScripts();
  assert.ok(found.includes('esbuild'), 'esbuild, which has a postinstall, is installed');
  assert.equal(found.filter((name) => !reviewed(name)), []);
});

test.run();
