// One-time codes for a stored credential's second factor: RFC 6238 TOTP over RFC 4226 HOTP. The key comes as a
// site shows it under the QR code, an otpauth:// URI or a bare base32 string; counter-based (hotp) keys are
// refused, as the vault keeps no counter.
import { createHmac } from 'node:crypto';

export type TotpSpec = { secret: Buffer; algorithm: 'SHA1' | 'SHA256' | 'SHA512'; digits: number; period: number };

const ALGORITHMS = ['SHA1', 'SHA256', 'SHA512'] as const;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** RFC 4226 asks for at least 128 bits and allows no fewer than 80; shorter keys are typos, not keys. */
const MIN_SECRET_BYTES = 10;

/** RFC 4648 base32, case-insensitive, spaces and trailing '=' padding ignored; null on any other character. */
function decodeBase32(text: string): Buffer | null {
  const chars = text.replace(/\s+/g, '').replace(/=+$/, '').toUpperCase();
  // 1, 3 or 6 characters past a whole 8-character group cannot come from any byte string.
  if ([1, 3, 6].includes(chars.length % 8)) return null;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of chars) {
    const digit = BASE32.indexOf(ch);
    if (digit < 0) return null;
    value = ((value << 5) | digit) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 0xff);
    }
  }
  return Buffer.from(out);
}

/** A whole number from a URI parameter within [min, max], the default when absent, null otherwise. */
function numberParam(value: string | null, fallback: number, min: number, max: number): number | null {
  if (value === null) return fallback;
  if (!/^\d{1,4}$/.test(value)) return null;
  const n = Number(value);
  return n >= min && n <= max ? n : null;
}

/** The key and its settings, or null when the text is neither a TOTP URI nor a usable base32 key. */
export function parseTotp(text: string): TotpSpec | null {
  const trimmed = text.trim();
  if (!/^otpauth:/i.test(trimmed)) {
    const secret = decodeBase32(trimmed);
    return secret && secret.length >= MIN_SECRET_BYTES ? { secret, algorithm: 'SHA1', digits: 6, period: 30 } : null;
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.host.toLowerCase() !== 'totp') return null;
  const params = url.searchParams;
  const secret = decodeBase32(params.get('secret') ?? '');
  const algorithm = ALGORITHMS.find((a) => a === (params.get('algorithm') ?? 'SHA1').toUpperCase());
  const digits = numberParam(params.get('digits'), 6, 6, 8);
  const period = numberParam(params.get('period'), 30, 1, 300);
  if (!secret || secret.length < MIN_SECRET_BYTES || !algorithm || digits === null || period === null) return null;
  return { secret, algorithm, digits, period };
}

/** The code at `at` (ms since the epoch), zero-padded to the spec's digits. */
export function totpCode(spec: TotpSpec, at: number = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(at / (spec.period * 1000)))));
  const mac = createHmac(spec.algorithm.toLowerCase(), spec.secret).update(counter).digest();
  // RFC 4226 §5.3 dynamic truncation: 31 bits at the offset the last nibble names.
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** spec.digits).padStart(spec.digits, '0');
}
