// statUntrusted: a file's size below a folder the agent owns, never through a link it planted on the way.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { statUntrusted } from '../../server/desktop/contain/untrusted-file.ts';

const test = suite('statUntrusted');

test('reads a file through real folders; a folder swapped for a link, or a link at the end, shows nothing beyond it', () => {
  const root = mkdtempSync(join(tmpdir(), 'aw-untrusted-'));
  try {
    const home = join(root, 'home');
    mkdirSync(join(home, '.config', 'chromium', 'Default'), { recursive: true });
    writeFileSync(join(home, '.config', 'chromium', 'Default', 'Cookies'), 'x'.repeat(123));
    assert.is(statUntrusted(home, ['.config', 'chromium', 'Default', 'Cookies'])?.size, 123);
    assert.is(statUntrusted(home, ['.config', 'chromium', 'Default', 'missing']), null);
    // Elsewhere on the host: a file the agent must not learn about.
    mkdirSync(join(root, 'secret', 'Default'), { recursive: true });
    writeFileSync(join(root, 'secret', 'Default', 'Cookies'), 'y'.repeat(4567));
    rmSync(join(home, '.config', 'chromium'), { recursive: true });
    symlinkSync(join(root, 'secret'), join(home, '.config', 'chromium'));
    assert.is(statUntrusted(home, ['.config', 'chromium', 'Default', 'Cookies']), null, 'a folder on the way is a link');
    mkdirSync(join(home, 'Default2'));
    symlinkSync(join(root, 'secret', 'Default', 'Cookies'), join(home, 'Default2', 'Cookies'));
    assert.is.not(statUntrusted(home, ['Default2', 'Cookies'])?.size, 4567, 'the last part is the link itself');
    assert.is(statUntrusted(home, ['..', 'secret']), null);
    assert.is(statUntrusted(home, ['a/b']), null);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
