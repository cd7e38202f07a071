// Serves the built SPA: hashed assets cached forever, everything else falls back to index.html
// so that history-API routes load the app. A text file's .br or .gz sibling (written by build.mjs)
// goes out instead of it when the request accepts that coding; nothing is compressed per request.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { acceptedCoding, type Coding } from './compress.ts';
import { sendJson } from './errors.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
/** The types build.mjs writes compressed siblings for; the rest (PNG, fonts) is compressed already. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.map', '.json', '.webmanifest', '.svg', '.txt']);
const SUFFIX: Record<Coding, string> = { br: '.br', gzip: '.gz' };

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

  const found = rel ? await fileStat(file) : null;
  if (found !== null) {
    const immutable = rel.startsWith('assets' + sep);
    return send(req, res, file, found, immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  }
  // A missing file with an extension is a real 404; a route without one gets the app.
  if (extname(rel)) return sendJson(res, 404, { detail: 'Not found' });
  const index = join(root, 'index.html');
  const indexStat = await fileStat(index);
  if (indexStat === null) return sendJson(res, 503, { detail: 'The app is not built yet: run npm run build' });
  await send(req, res, index, indexStat, 'no-cache');
}

type FileStat = { size: number; mtime: Date };

async function fileStat(path: string): Promise<FileStat | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? { size: s.size, mtime: s.mtime } : null;
  } catch {
    return null;
  }
}

/** Whether the client's copy (If-Modified-Since, whole seconds as HTTP dates are) is still this file. */
function unchangedSince(req: IncomingMessage, mtime: Date): boolean {
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

/** The compressed sibling to send instead of `file`, when the request accepts one and it exists. */
async function variant(req: IncomingMessage, file: string): Promise<{ coding: Coding; path: string; size: number } | null> {
  const accepted = acceptedCoding(req.headers['accept-encoding']);
  // Brotli preferred; a client that takes only gzip (or refuses br with q=0) gets gzip.
  const order: Coding[] = accepted === 'br' ? ['br', 'gzip'] : accepted === 'gzip' ? ['gzip'] : [];
  for (const coding of order) {
    if (coding === 'gzip' && acceptedCoding(req.headers['accept-encoding'], ['gzip']) === null) continue;
    const path = file + SUFFIX[coding];
    const found = await fileStat(path);
    if (found !== null) return { coding, path, size: found.size };
  }
  return null;
}

async function send(req: IncomingMessage, res: ServerResponse, file: string, { size, mtime }: FileStat, cacheControl: string) {
  const type = extname(file);
  // Files that are not content-hashed (index.html, the favicon) are revalidated on each use: a 304 when unchanged.
  const validated = !cacheControl.includes('immutable');
  if (validated && unchangedSince(req, mtime)) {
    res.writeHead(304, { 'Cache-Control': cacheControl, 'Last-Modified': mtime.toUTCString(), ...(COMPRESSIBLE.has(type) ? { Vary: 'Accept-Encoding' } : {}) });
    return void res.end();
  }
  const headers: Record<string, string | number> = {
    'Content-Type': TYPES[type] ?? 'application/octet-stream',
    'Content-Length': size,
    'Cache-Control': cacheControl,
  };
  if (validated) headers['Last-Modified'] = mtime.toUTCString();
  let path = file;
  if (COMPRESSIBLE.has(type)) {
    headers.Vary = 'Accept-Encoding';
    const chosen = await variant(req, file);
    if (chosen) {
      path = chosen.path;
      headers['Content-Length'] = chosen.size;
      headers['Content-Encoding'] = chosen.coding;
    }
  }
  res.writeHead(200, headers);
  if (req.method === 'HEAD') return void res.end();
  // A file gone since stat (a rebuild) must not become an unhandled 'error' event: the answer is cut instead.
  createReadStream(path).on('error', () => res.destroy()).pipe(res);
}
