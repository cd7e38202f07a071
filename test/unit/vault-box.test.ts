import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadVaultBox, VaultBox, VaultKeyError } from '../../server/vault/vault-box.ts';
import { StartRefused } from '../../server/system/start-refused.ts';

/** The error `fn` throws (fails the test when it throws none). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

const box = suite('vault box: sealing');
const keyA = randomBytes(32);
const keyB = randomBytes(32);

box('a sealed value opens for its label', () => {
  const vault = new VaultBox(keyA, null, 'test');
  const sealed = vault.seal('hunter2 ✓', 'credential:1:password');
  assert.ok(VaultBox.isSealed(sealed));
  assert.ok(sealed.startsWith('vault:v1:'));
  assert.not.ok(sealed.includes('hunter2'));
  assert.equal(vault.open(sealed, 'credential:1:password'), { plain: 'hunter2 ✓', stale: false });
  assert.equal(vault.open(vault.seal('', 'empty'), 'empty'), { plain: '', stale: false });
});

box('two seals of the same value differ', () => {
  const vault = new VaultBox(keyA, null, 'test');
  assert.is.not(vault.seal('same', 'l'), vault.seal('same', 'l'));
});

box('a value moved to another label does not open', () => {
  const vault = new VaultBox(keyA, null, 'test');
  const err = thrown(() => vault.open(vault.seal('hunter2', 'credential:1:password'), 'credential:2:password'));
  assert.instance(err, VaultKeyError);
  assert.ok(err.message.includes('credential:2:password'));
});

box('a value sealed under the previous key opens, stale', () => {
  const sealed = new VaultBox(keyB, null, 'old').seal('hunter2', 'l');
  assert.equal(new VaultBox(keyA, keyB, 'test').open(sealed, 'l'), { plain: 'hunter2', stale: true });
});

box('a foreign key fails with a VaultKeyError that names the label, not the value', () => {
  const sealed = new VaultBox(randomBytes(32), null, 'other').seal('hunter2', 'credential:7:password');
  const err = thrown(() => new VaultBox(keyA, keyB, 'VAULT_KEY').open(sealed, 'credential:7:password'));
  assert.instance(err, VaultKeyError);
  assert.instance(err, StartRefused);
  assert.is(err.name, 'VaultKeyError');
  assert.ok(err.message.includes('credential:7:password'));
  assert.ok(err.message.includes('VAULT_KEY'));
  assert.ok(err.message.includes('does not open'));
  assert.not.ok(err.message.includes('hunter2'));
});

box('text that is not sealed, or is cut short, fails the same way', () => {
  const vault = new VaultBox(keyA, null, 'test');
  for (const text of ['hunter2', 'sealed:v1:abc', 'vault:v1:', 'vault:v1:AAAA', vault.seal('hunter2', 'l').slice(0, -4)]) {
    const err = thrown(() => vault.open(text, 'l'));
    assert.instance(err, VaultKeyError, text);
    assert.not.ok(err.message.includes('hunter2'));
  }
});

box('keys that are not 32 bytes are refused', () => {
  assert.instance(thrown(() => new VaultBox(randomBytes(16), null, 'VAULT_KEY')), VaultKeyError);
  assert.instance(thrown(() => new VaultBox(keyA, randomBytes(31), 'VAULT_KEY')), VaultKeyError);
});

// ---

const load = suite('vault box: loading the key');
let dir = '';
load.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-vault-'));
});
load.after.each(() => rmSync(dir, { recursive: true, force: true }));

load('the first start makes vault.key 0600 (and its folder 0700); the next reuses it', () => {
  const dataDir = join(dir, 'data');
  const first = loadVaultBox({ key: null, previous: null }, dataDir);
  const file = join(dataDir, 'vault.key');
  assert.is(first.source, file);
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.is(statSync(dataDir).mode & 0o777, 0o700);
  const second = loadVaultBox({ key: null, previous: null }, dataDir);
  assert.equal(second.open(first.seal('hunter2', 'l'), 'l'), { plain: 'hunter2', stale: false });
  assert.is(readFileSync(file, 'utf8').trim().length, 44);
});

load('a file that holds no key is refused, naming the file', () => {
  const file = join(dir, 'vault.key');
  writeFileSync(file, 'not a key at all\n', { mode: 0o600 });
  const err = thrown(() => loadVaultBox({ key: null, previous: null }, dir));
  assert.instance(err, VaultKeyError);
  assert.ok(err.message.includes(file));
  assert.is(readFileSync(file, 'utf8'), 'not a key at all\n', 'left as it was');
});

load('a hex key in the file is read too', () => {
  writeFileSync(join(dir, 'vault.key'), keyA.toString('hex'));
  const sealed = new VaultBox(keyA, null, 'test').seal('hunter2', 'l');
  assert.is(loadVaultBox({ key: null, previous: null }, dir).open(sealed, 'l').plain, 'hunter2');
});

load('a configured key is used without making a file; the previous key comes along', () => {
  const vault = loadVaultBox({ key: keyA, previous: keyB }, dir);
  assert.is(vault.source, 'VAULT_KEY');
  assert.not.ok(existsSync(join(dir, 'vault.key')));
  assert.equal(vault.open(new VaultBox(keyA, null, 'x').seal('a', 'l'), 'l'), { plain: 'a', stale: false });
  assert.equal(vault.open(new VaultBox(keyB, null, 'x').seal('b', 'l'), 'l'), { plain: 'b', stale: true });
});

load('a file-backed box also opens what the previous key sealed', () => {
  const vault = loadVaultBox({ key: null, previous: keyB }, dir);
  assert.equal(vault.open(new VaultBox(keyB, null, 'x').seal('b', 'l'), 'l'), { plain: 'b', stale: true });
});

box.run();
load.run();
