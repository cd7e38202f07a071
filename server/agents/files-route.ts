// /api/agents/:id/files (issue 50): what the agent has, for its owner (and admins) to download: its uploads (the
// stored rows, their bytes read from the blob store) and what its desktop holds in ~/Desktop and ~/Downloads (read
// by the desktop wing without following anything the agent planted). Every file is sent as an attachment of
// opaque type (nosniff): a page or script the agent wrote is never shown or run as this site's.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Api } from '../http/api.ts';
import { HttpError, invalid } from '../http/errors.ts';
import type { Log } from '../ops/log.ts';
import type { BlobStore } from '../storage/index.ts';
import { agentIdParam } from './params.ts';
import { agentUpload, agentUploads } from './uploads.ts';

/** What the desktop wing tells of a home's files (desktop/keep/home-files.ts). */
export type DesktopFiles = {
  list(agentId: number): Promise<{ folder: string; name: string; bytes: number; modifiedAt: Date }[]>;
  open(agentId: number, folder: string, name: string): Promise<{ body: Readable; bytes: number; modifiedAt: Date } | null>;
};

type Deps = { blobs: BlobStore; homeFiles?: DesktopFiles | null; log: Log };

export type AgentFile = {
  name: string;
  bytes: number;
  modified_at: string;
  source: 'upload' | 'desktop';
  /** Where on the desktop ('Desktop' or 'Downloads'), null for an upload. */
  folder: string | null;
  url: string;
};

export function registerAgentFileRoutes(api: Api, deps: Deps): void {
  api.get('/agents/:id/files', async (ctx) => {
    const id = await agentIdParam(ctx);
    const uploads = (await agentUploads(ctx.db, id)).map((u): AgentFile => ({
      name: u.original_name, bytes: u.size_bytes, modified_at: u.created_at.toISOString(), source: 'upload', folder: null,
      url: `/api/agents/${id}/files/uploads/${u.id}`,
    }));
    const desktop = (await deps.homeFiles?.list(id) ?? []).map((f): AgentFile => ({
      name: f.name, bytes: f.bytes, modified_at: f.modifiedAt.toISOString(), source: 'desktop', folder: f.folder,
      url: `/api/agents/${id}/files/desktop?path=${encodeURIComponent(`${f.folder}/${f.name}`)}`,
    }));
    return [...desktop, ...uploads].sort((a, b) => (a.modified_at < b.modified_at ? 1 : a.modified_at > b.modified_at ? -1 : 0));
  });

  api.get('/agents/:id/files/uploads/:fileId', async (ctx) => {
    const id = await agentIdParam(ctx);
    const fileId = Number(ctx.params.fileId);
    const upload = Number.isSafeInteger(fileId) && fileId > 0 ? await agentUpload(ctx.db, id, fileId) : null;
    const read = upload && (await deps.blobs.get(upload.file_path));
    if (!upload || !read) throw new HttpError(404, 'File not found');
    await send(ctx.res, upload.original_name, read, deps.log);
    return undefined;
  });

  api.get('/agents/:id/files/desktop', async (ctx) => {
    const id = await agentIdParam(ctx);
    const path = ctx.query.get('path') ?? '';
    const slash = path.indexOf('/');
    if (slash < 1) throw invalid('path', 'path must be a folder and a file name (Desktop/report.pdf)', 'query');
    const file = await deps.homeFiles?.open(id, path.slice(0, slash), path.slice(slash + 1));
    if (!file) throw new HttpError(404, 'File not found');
    await send(ctx.res, path.slice(slash + 1), file, deps.log);
    return undefined;
  });
}

async function send(res: ServerResponse, name: string, file: { body: Readable; bytes: number; modifiedAt: Date }, log: Log): Promise<void> {
  res.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(file.bytes),
    'Content-Disposition': contentDisposition(name),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-store',
    'Last-Modified': file.modifiedAt.toUTCString(),
  });
  try {
    await pipeline(file.body, res);
  } catch (err) {
    // Headers are gone: a cut-off body is all that can say so (a client that went away is no error).
    if (!res.destroyed) log.error(`file download failed: ${(err as Error).message}`);
    res.destroy();
  }
}

/** RFC 6266: an ASCII fallback name, and the name itself as UTF-8 in filename* (RFC 8187). */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'file';
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
