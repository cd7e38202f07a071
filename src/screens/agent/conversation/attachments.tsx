// Files attached to the next message (spec §4 "File item"): each goes pending → uploading (with the
// XHR's upload progress) → done, keeping the server's file_path; a failed upload returns to pending
// (logged only) and can be retried. Files over 100 MB are refused with a message shown for 5 s.
import { useCallback, useEffect, useRef, useState } from 'react';
import { uploadFile, type UploadOptions, type UploadResult } from '../../../lib/api.ts';
import { formatBytes } from '../../../lib/format-bytes.ts';
import { FILE_ERROR_MS, oversizeMessage, splitBySize } from './file-limits.ts';
import { CheckIcon, CloseIcon, FileIcon, RetryIcon } from '../../../ui/icons.tsx';

export type FileItem = {
  id: number;
  file: File;
  status: 'pending' | 'uploading' | 'done';
  /** 0..1 while uploading. */
  progress: number;
  /** Set once done. */
  filePath?: string;
  /** Failed uploads so far. */
  failures: number;
};

type Upload = (agentId: number, file: File, options: UploadOptions) => Promise<UploadResult>;

let lastId = 0;

export function useAttachments(agentId: number, upload: Upload = uploadFile) {
  const [items, setItems] = useState<FileItem[]>([]);
  const [error, setError] = useState<string | null>(null);
  const controllers = useRef(new Map<number, AbortController>());
  const errorTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const patch = useCallback((id: number, change: Partial<FileItem> | ((item: FileItem) => Partial<FileItem>)) => {
    setItems((all) => all.map((item) => (item.id === id ? { ...item, ...(typeof change === 'function' ? change(item) : change) } : item)));
  }, []);

  const start = useCallback(async (item: FileItem) => {
    if (!(agentId > 0)) return; // spec §5: uploads need an agent id; the item stays pending
    const controller = new AbortController();
    controllers.current.set(item.id, controller);
    patch(item.id, { status: 'uploading', progress: 0 });
    try {
      const result = await upload(agentId, item.file, {
        signal: controller.signal,
        onProgress: ({ fraction }) => patch(item.id, { progress: fraction }),
      });
      patch(item.id, { status: 'done', progress: 1, filePath: result.file_path });
    } catch (err) {
      if (controller.signal.aborted) return; // removed by the user: the item is gone
      console.warn(`Failed to upload ${item.file.name}`, err); // spec §8: logged only
      patch(item.id, (current) => ({ status: 'pending', progress: 0, failures: current.failures + 1 }));
    } finally {
      controllers.current.delete(item.id);
    }
  }, [agentId, upload, patch]);

  const add = useCallback((files: readonly File[]) => {
    const { accepted, rejected } = splitBySize(files);
    const message = oversizeMessage(rejected);
    if (message) {
      clearTimeout(errorTimer.current);
      setError(message);
      errorTimer.current = setTimeout(() => setError(null), FILE_ERROR_MS);
    }
    const added = accepted.map<FileItem>((file) => ({ id: ++lastId, file, status: 'pending', progress: 0, failures: 0 }));
    if (added.length === 0) return;
    setItems((all) => [...all, ...added]);
    for (const item of added) void start(item);
  }, [start]);

  const remove = useCallback((id: number) => {
    controllers.current.get(id)?.abort();
    setItems((all) => all.filter((item) => item.id !== id));
  }, []);

  const retry = useCallback((item: FileItem) => void start(item), [start]);

  /** Drops the done files (after they were sent); pending ones stay for a retry. */
  const clearDone = useCallback(() => setItems((all) => all.filter((item) => item.status !== 'done')), []);

  useEffect(() => {
    const running = controllers.current;
    return () => {
      clearTimeout(errorTimer.current);
      for (const controller of running.values()) controller.abort();
    };
  }, []);

  return { items, error, add, remove, retry, clearDone };
}

type AttachmentListProps = {
  items: FileItem[];
  onRemove: (id: number) => void;
  onRetry: (item: FileItem) => void;
};

export function AttachmentList({ items, onRemove, onRetry }: AttachmentListProps) {
  if (items.length === 0) return null;
  return (
    <ul className="attachments" aria-label="Attached files">
      {items.map((item) => {
        const name = item.file.name;
        const percent = Math.round(item.progress * 100);
        return (
          <li key={item.id} className="attachment" data-status={item.status}>
            <span className="attachment-icon">{item.status === 'done' ? <CheckIcon size={14} /> : <FileIcon size={14} />}</span>
            <span className="attachment-name" title={name}>{name}</span>
            <span className="attachment-meta">
              {item.status === 'uploading' ? `${percent}%`
                : item.status === 'done' ? 'Uploaded'
                : item.failures > 0 ? 'Upload failed' : formatBytes(item.file.size)}
            </span>
            {item.status === 'pending' && item.failures > 0 && (
              <button type="button" className="icon-button attachment-action" aria-label={`Retry upload of ${name}`} title="Retry upload"
                onClick={() => onRetry(item)}>
                <RetryIcon size={14} />
              </button>
            )}
            <button type="button" className="icon-button attachment-action" aria-label={`Remove ${name}`} title="Remove"
              onClick={() => onRemove(item.id)}>
              <CloseIcon size={14} strokeWidth={1.9} />
            </button>
            {item.status === 'uploading' && (
              <span className="attachment-progress" role="progressbar" aria-label={`Uploading ${name}`}
                aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
                <span style={{ width: `${percent}%` }} />
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
