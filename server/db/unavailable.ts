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
