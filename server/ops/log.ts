// The server's log: plain lines (default) or, with LOG_FORMAT=json, one JSON object a line with
// time, level, msg and any fields the caller adds (request_id, route, status, ms, …).

/** `fields` (request_id, route, …) become JSON keys with LOG_FORMAT=json. */
export type Log = {
  info: (msg: string, fields?: Record<string, unknown>) => void;
  error: (msg: string, fields?: Record<string, unknown>) => void;
};

type Write = (line: string) => void;

export function createLog(
  format: 'text' | 'json',
  out: Write = (l) => process.stdout.write(l + '\n'),
  err: Write = (l) => process.stderr.write(l + '\n'),
): Log {
  if (format === 'json') {
    const line = (level: string, msg: string, fields?: Record<string, unknown>) =>
      JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
    return {
      info: (msg, fields) => out(line('info', msg, fields)),
      error: (msg, fields) => err(line('error', msg, fields)),
    };
  }
  const suffix = (fields?: Record<string, unknown>) => (fields?.request_id ? ` [${fields.request_id}]` : '');
  return {
    info: (msg, fields) => out(`${new Date().toISOString()} ${msg}${suffix(fields)}`),
    error: (msg, fields) => err(`${new Date().toISOString()} ERROR ${msg}${suffix(fields)}`),
  };
}
