// Which errors mean "the disk is full": ENOSPC, or EDQUOT (the filesystem's quota for our user), from any
// fs call, also when wrapped in a `cause`. A leaf: http/errors.ts maps these to 507 and safe-write.ts
// turns them into that answer where files are written.
export const OUT_OF_SPACE_DETAIL = 'Not enough storage space on the server';

const CODES = new Set(['ENOSPC', 'EDQUOT']);

export function isOutOfSpace(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const { code, cause } = err as { code?: unknown; cause?: unknown };
  return (typeof code === 'string' && CODES.has(code)) || isOutOfSpace(cause, depth + 1);
}
