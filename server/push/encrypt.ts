// Message encryption for Web Push (RFC 8291): a payload is encrypted for one browser with its subscription's keys
// (p256dh: its P-256 public key; auth: a 16-byte secret) as a single aes128gcm record (RFC 8188) whose header
// carries a fresh ECDH key of ours. Only that browser can read it; the push service sees its length. Padding is
// left out: the notifications' lengths say little (an agent's name, a question's first 100 characters).
import { createCipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';

/** The record size written in the header: our one record is always shorter. */
const RECORD_SIZE = 4096;
/** A push service takes a body of 4,096 bytes at most (RFC 8291 §4): the header (86), the delimiter and the tag (16) come on top. */
export const MAX_PLAINTEXT = 4096 - 86 - 1 - 16;

export type SubscriptionKeys = { p256dh: Buffer; auth: Buffer };
/** For the RFC's test vector: our ECDH private key and the salt, else fresh ones. */
export type EncryptOptions = { privateKey?: Buffer; salt?: Buffer };

/** The aes128gcm body: salt (16) | record size (4) | key id length (1) | our public key (65) | the one record. */
export function encryptPayload(plain: Buffer, keys: SubscriptionKeys, options: EncryptOptions = {}): Buffer {
  if (plain.length > MAX_PLAINTEXT) throw new RangeError(`a push payload of ${plain.length} bytes is over ${MAX_PLAINTEXT}`);
  const ecdh = createECDH('prime256v1');
  if (options.privateKey) ecdh.setPrivateKey(options.privateKey);
  else ecdh.generateKeys();
  const ours = ecdh.getPublicKey();
  const salt = options.salt ?? randomBytes(16);
  // RFC 8291 §3.3-3.4: the auth secret mixes into the shared secret, then RFC 8188 derives the key and nonce.
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.p256dh, ours]);
  const ikm = hkdf(ecdh.computeSecret(keys.p256dh), keys.auth, keyInfo, 32);
  const cek = hkdf(ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = hkdf(ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12);
  const cipher = createCipheriv('aes-128-gcm', cek, nonce);
  // 0x02: the delimiter of the last (here the only) record, RFC 8188 §2.
  const record = Buffer.concat([cipher.update(plain), cipher.update(Buffer.from([2])), cipher.final(), cipher.getAuthTag()]);
  const header = Buffer.alloc(21);
  salt.copy(header, 0);
  header.writeUInt32BE(RECORD_SIZE, 16);
  header[20] = ours.length;
  return Buffer.concat([header, ours, record]);
}

/** A browser's p256dh: an uncompressed point (65 bytes, 0x04 first) on P-256. */
export function isP256PublicKey(key: Buffer): boolean {
  if (key.length !== 65 || key[0] !== 4) return false;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    ecdh.computeSecret(key); // throws for a point off the curve
    return true;
  } catch {
    return false;
  }
}

const hkdf = (ikm: Buffer, salt: Buffer, info: Buffer, length: number) => Buffer.from(hkdfSync('sha256', ikm, salt, info, length));
