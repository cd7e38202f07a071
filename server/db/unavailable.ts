// Errors that mean "the database cannot be reached right now" (restarting, down, connection cut), as
// opposed to a bad query: the API answers these 503 so clients retry, instead of a 500 that looks like a bug.
const CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', // admin_shutdown: terminating connection due to administrator command
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the database system is starting up / shutting down
  '08000', '08001', '08003', '08004', '08006', // connection exceptions
]);
const MESSAGES = /Connection terminated|connection error and is not queryable|Client was closed|timeout exceeded when trying to connect/i;

export function databaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && CODES.has(code)) return true;
  if (err instanceof AggregateError) return err.errors.some(databaseUnavailable); // a refused connect to ::1 and 127.0.0.1
  return typeof message === 'string' && MESSAGES.test(message);
}

// Errors that mean "the database is up but cannot write": its disk is full (PostgreSQL 53100 disk_full, PGlite
// throws the same code with "could not extend file …: No space left on device"), it is out of resources
// (53000), or it is read-only (25006, a hot standby or default_transaction_read_only; EROFS under PGlite).
// Reads still work, and writes do again once that is fixed: no restart, so 503 and not 500.
const CANNOT_WRITE: Record<string, string> = {
  '53100': 'the server is out of disk space',
  '53000': 'the server is out of resources',
  '25006': 'it is read-only',
};
const CANNOT_WRITE_MESSAGES: [RegExp, string][] = [
  [/No space left on device|Disk quota exceeded/i, CANNOT_WRITE['53100']],
  [/Read-only file system/i, CANNOT_WRITE['25006']],
];

/** The detail to answer when the database cannot write, else null. */
export function databaseCannotWrite(err: unknown): string | null {
  if (!err || typeof err !== 'object') return null;
  const { code, message, severity } = err as { code?: unknown; message?: unknown; severity?: unknown };
  // Only errors the database sent (with a severity and a SQLSTATE); an fs ENOSPC or EROFS of our own is not one.
  if (typeof severity !== 'string' || typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return null;
  const why = CANNOT_WRITE[code] ?? CANNOT_WRITE_MESSAGES.find(([re]) => typeof message === 'string' && re.test(message))?.[1];
  return why ? `The database cannot write right now: ${why}` : null;
}
