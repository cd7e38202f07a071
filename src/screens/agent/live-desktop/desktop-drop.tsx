// Files dropped onto the agent's desktop (native HTML5 drag and drop): a drop zone while files hover, one progress
// row per file, the 100 MB cap, and 'Failed to upload <file name>' for 5 s (spec §5, §8, §9). The server
// attaches each upload to the agent and copies it into the desktop's ~/Desktop; where it landed is said for a moment.
import { useCallback, useEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { normalizeError } from '../../../lib/http.ts';
import { uploadFile } from '../../../lib/api.ts';
import { FILE_ERROR_MS, oversizeMessage, splitBySize } from '../conversation/file-limits.ts';

type Upload = { id: number; name: string; fraction: number; done: boolean };
let nextId = 0;
const DONE_VISIBLE_MS = 1500;
const SAVED_VISIBLE_MS = 5000;

const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files');

export function DesktopDropZone({ agentId, children }: { agentId: number; children: ReactNode }) {
  const [hovering, setHovering] = useState(false);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [errors, setErrors] = useState<{ id: number; text: string }[]>([]);
  const [saved, setSaved] = useState<{ id: number; text: string }[]>([]);
  const depth = useRef(0);
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());

  useEffect(() => () => timers.current.forEach(clearTimeout), []);
  const later = useCallback((fn: () => void, ms: number) => {
    const t = setTimeout(() => {
      timers.current.delete(t);
      fn();
    }, ms);
    timers.current.add(t);
  }, []);

  const showError = useCallback((text: string) => {
    const id = ++nextId;
    setErrors((list) => [...list, { id, text }]);
    later(() => setErrors((list) => list.filter((e) => e.id !== id)), FILE_ERROR_MS);
  }, [later]);

  const upload = useCallback(async (file: File) => {
    const id = ++nextId;
    const update = (patch: Partial<Upload>) => setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...patch } : u)));
    setUploads((list) => [...list, { id, name: file.name, fraction: 0, done: false }]);
    try {
      const result = await uploadFile(agentId, file, { onProgress: ({ fraction }) => update({ fraction }) });
      update({ fraction: 1, done: true });
      later(() => setUploads((list) => list.filter((u) => u.id !== id)), DONE_VISIBLE_MS);
      // Where it landed: the desktop's copy (renamed when the name was taken), or only the agent's files.
      const text = result.desktop_file ? `Saved to ${result.desktop_file}` : `Uploaded ${file.name} to the agent's files`;
      setSaved((list) => [...list, { id, text }]);
      later(() => setSaved((list) => list.filter((s) => s.id !== id)), SAVED_VISIBLE_MS);
    } catch (error) {
      console.error('VM upload failed', normalizeError(error));
      setUploads((list) => list.filter((u) => u.id !== id));
      showError(`Failed to upload ${file.name}`);
    }
  }, [agentId, later, showError]);

  const onDragEnter = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth.current += 1;
    setHovering(true);
  };
  const onDragOver = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault(); // allows the drop
    event.dataTransfer.dropEffect = 'copy';
  };
  const onDragLeave = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    depth.current = Math.max(0, depth.current - 1);
    if (depth.current === 0) setHovering(false);
  };
  const onDrop = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth.current = 0;
    setHovering(false);
    const { accepted, rejected } = splitBySize(Array.from(event.dataTransfer.files));
    const tooBig = oversizeMessage(rejected);
    if (tooBig) showError(tooBig);
    for (const file of accepted) void upload(file);
  };

  return (
    <div className="vm-drop" onDragEnter={onDragEnter} onDragOver={onDragOver} onDragLeave={onDragLeave} onDrop={onDrop}>
      {children}
      {hovering && (
        <div className="vm-drop-zone" aria-hidden="true">
          <span>Drop files to put them on the desktop</span>
        </div>
      )}
      {(uploads.length > 0 || errors.length > 0 || saved.length > 0) && (
        <div className="vm-uploads">
          {uploads.map((u) => (
            <div key={u.id} className="vm-upload" data-done={u.done || undefined}>
              <span className="vm-upload-name" title={u.name}>{u.name}</span>
              <progress max={1} value={u.fraction} aria-label={`Uploading ${u.name}`} />
            </div>
          ))}
          {saved.map((s) => (
            <p key={s.id} className="vm-upload-saved" role="status">{s.text}</p>
          ))}
          {errors.map((e) => (
            <p key={e.id} className="vm-upload-error" role="alert">{e.text}</p>
          ))}
        </div>
      )}
    </div>
  );
}
