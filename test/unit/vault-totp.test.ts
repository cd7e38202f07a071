import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseTotp, totpCode } from '../../server/vault/totp.ts';

/** RFC 4648 base32 without padding, to hand the RFC's ASCII seeds to parseTotp as a site would. */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

const SEEDS = {
  SHA1: '12345678901234567890',
  SHA256: '12345678901234567890123456789012',
  SHA512: '1234567890123456789012345678901234567890123456789012345678901234',
};

// RFC 6238 Appendix B: seconds since the epoch, then the SHA1, SHA256 and SHA512 codes.
const VECTORS: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

const rfc = suite('totp: RFC 6238 test vectors');

for (const [i, algorithm] of (['SHA1', 'SHA256', 'SHA512'] as const).entries()) {
  rfc(`${algorithm} codes from an otpauth URI`, () => {
    const secret = base32(Buffer.from(SEEDS[algorithm]));
    const spec = parseTotp(`otpauth://totp/Example:alice@example.com?secret=${secret}&issuer=Example&algorithm=${algorithm}&digits=8&period=30`);
    assert.ok(spec);
    assert.equal(spec, { secret: Buffer.from(SEEDS[algorithm]), algorithm, digits: 8, period: 30 });
    for (const vector of VECTORS) assert.is(totpCode(spec, vector[0] * 1000), vector[i + 1], `at ${vector[0]}`);
  });
}

rfc('the code changes at the period boundary only', () => {
  const spec = parseTotp(`otpauth://totp/x?secret=${base32(Buffer.from(SEEDS.SHA1))}&digits=8`)!;
  assert.is(totpCode(spec, 59_999), '94287082');
  assert.is.not(totpCode(spec, 60_000), '94287082');
});

// ---

const parse = suite('totp: parsing');

parse('a bare base32 key, lower case with spaces and padding, gets the defaults', () => {
  const key = base32(Buffer.from(SEEDS.SHA1)).toLowerCase().replace(/(.{4})/g, '$1 ');
  const spec = parseTotp(`  ${key}==== `);
  assert.equal(spec, { secret: Buffer.from(SEEDS.SHA1), algorithm: 'SHA1', digits: 6, period: 30 });
  assert.is(totpCode(spec!, 59_000), '287082');
});

parse('URI defaults are SHA1, 6 digits, 30 seconds; scheme, host and algorithm are case-insensitive', () => {
  const secret = base32(Buffer.from(SEEDS.SHA1));
  assert.equal(parseTotp(`otpauth://totp/Label?secret=${secret}`), { secret: Buffer.from(SEEDS.SHA1), algorithm: 'SHA1', digits: 6, period: 30 });
  assert.is(parseTotp(`OTPAUTH://TOTP/Label?secret=${secret}&algorithm=sha256&period=60`)?.algorithm, 'SHA256');
  assert.is(parseTotp(`otpauth://totp/Label?secret=${secret}&period=60`)?.period, 60);
});

parse('what is not a usable TOTP key is null', () => {
  const secret = base32(Buffer.from(SEEDS.SHA1));
  assert.is(parseTotp(`otpauth://hotp/Label?secret=${secret}&counter=1`), null, 'hotp');
  assert.is(parseTotp('otpauth://totp/Label?secret='), null, 'empty secret');
  assert.is(parseTotp('otpauth://totp/Label?issuer=x'), null, 'no secret');
  assert.is(parseTotp(`otpauth://totp/Label?secret=${secret}&digits=5`), null, 'digits=5');
  assert.is(parseTotp(`otpauth://totp/Label?secret=${secret}&digits=9`), null, 'digits=9');
  assert.is(parseTotp(`otpauth://totp/Label?secret=${secret}&period=0`), null, 'period=0');
  assert.is(parseTotp(`otpauth://totp/Label?secret=${secret}&period=301`), null, 'period=301');
  assert.is(parseTotp(`otpauth://totp/Label?secret=${secret}&algorithm=MD5`), null, 'unknown algorithm');
  assert.is(parseTotp(`otpauth://totp/Label?secret=${secret}1`), null, 'not base32');
  assert.is(parseTotp('not a key!'), null, 'garbage');
  assert.is(parseTotp(''), null, 'empty');
  assert.is(parseTotp('https://example.com/?secret=' + secret), null, 'another URI');
  assert.is(parseTotp(base32(Buffer.from('123456789'))), null, 'short secret (72 bits)');
  assert.ok(parseTotp(base32(Buffer.from('1234567890'))), '80 bits is enough');
});

rfc.run();
parse.run();
