// Serves the built SPA: hashed assets cached forever, everything else falls back to index.html
// so that history-API routes load the app.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { sendJson } from './errors.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return sendJson(res, 405, { detail: 'Method not allowed' }, { Allow: 'GET, HEAD' });
  }
  let rel: string;
  try {
    rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '');
  } catch {
    return sendJson(res, 400, { detail: 'Bad path' });
  }
  const file = join(root, rel);
  if (rel && !file.startsWith(root + sep)) return sendJson(res, 404, { detail: 'Not found' });

  const found = rel ? await fileSize(file) : null;
  if (found !== null) {
    const immutable = rel.startsWith('assets' + sep);
    return send(req, res, file, found, immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  }
  // A missing file with an extension is a real 404; a route without one gets the app.
  if (extname(rel)) return sendJson(res, 404, { detail: 'Not found' });
  const index = join(root, 'index.html');
  const size = await fileSize(index);
  if (size === null) return sendJson(res, 503, { detail: 'The app is not built yet: run npm run build' });
  send(req, res, index, size, 'no-cache');
}

async function fileSize(path: string): Promise<number | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.size : null;
  } catch {
    return null;
  }
}

function send(req: IncomingMessage, res: ServerResponse, file: string, size: number, cacheControl: string) {
  res.writeHead(200, {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': size,
    'Cache-Control': cacheControl,
  });
  if (req.method === 'HEAD') return void res.end();
  // A file gone since stat (a rebuild) must not become an unhandled 'error' event: the answer is cut instead.
  createReadStream(file).on('error', () => res.destroy()).pipe(res);
}
