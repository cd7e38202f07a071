// Which errors mean "the disk is full": ENOSPC, or EDQUOT (the filesystem's quota for our user), from any
// fs call, also when wrapped in a `cause`, or said in the message of a helper process that wrote for us (cp,
// a copy as the agent's user). Not a database's error (it has a severity: db/unavailable.ts answers those
// 503). A leaf: http/errors.ts maps these to 507 and safe-write.ts turns them into that answer.
export const OUT_OF_SPACE_DETAIL = 'Not enough storage space on the server';

const CODES = new Set(['ENOSPC', 'EDQUOT']);
const MESSAGES = /No space left on device|Disk quota exceeded/i;

export function isOutOfSpace(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const { code, cause, message, severity } = err as { code?: unknown; cause?: unknown; message?: unknown; severity?: unknown };
  if (typeof code === 'string' && CODES.has(code)) return true;
  if (typeof severity !== 'string' && typeof message === 'string' && MESSAGES.test(message)) return true;
  return isOutOfSpace(cause, depth + 1);
}
