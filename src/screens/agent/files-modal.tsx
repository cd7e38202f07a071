// The agent's files (issue 50): its uploads and what its desktop holds in ~/Desktop and ~/Downloads, newest first,
// each with its size, date and a download button. Opened from the title bar's Files button; refreshed while open,
// since the desktop keeps writing.
import { useState } from 'react';
import { agentFilesPath, downloadAgentFile, type AgentFile } from '../../lib/files-api.ts';
import { formatBytes } from '../../lib/format-bytes.ts';
import { normalizeError } from '../../lib/http.ts';
import { useResource } from '../../lib/use-resource.ts';
import { DownloadIcon } from '../../ui/icons.tsx';
import { Modal } from '../../ui/modal.tsx';

const REFRESH_MS = 5000;

type FilesModalProps = { agentId: number; onClose: () => void };

export function FilesModal({ agentId, onClose }: FilesModalProps) {
  const { data: files, error, mutate } = useResource<AgentFile[]>(agentFilesPath(agentId), { refreshInterval: REFRESH_MS });
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const download = async (file: AgentFile) => {
    setFailed(null);
    setBusy(file.url);
    try {
      await downloadAgentFile(file);
    } catch (err) {
      setFailed(`Failed to download ${file.name}: ${normalizeError(err).detail}`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Modal title="Files" onClose={onClose} size="large">
      {error && !files ? (
        <div className="editor-error" role="alert">
          <p>Failed to load files</p>
          <button type="button" className="button" onClick={() => void mutate()}>Retry</button>
        </div>
      ) : !files ? (
        <p className="editor-loading" role="status">Loading files...</p>
      ) : (
        <div className="agent-files">
          {failed && <p className="form-error" role="alert">{failed}</p>}
          <div className="table-scroll">
            <table className="data-table agent-files-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Where</th>
                  <th scope="col" data-numeric>Size</th>
                  <th scope="col">Modified</th>
                  <th scope="col"><span className="visually-hidden">Download</span></th>
                </tr>
              </thead>
              <tbody>
                {files.length === 0 && (
                  <tr>
                    <td colSpan={5} className="agent-files-empty">No files yet: uploads and what the agent saves on its Desktop or in Downloads show here.</td>
                  </tr>
                )}
                {files.map((file) => (
                  <tr key={file.url}>
                    <td className="agent-files-name">{file.name}</td>
                    <td>{file.source === 'upload' ? 'Uploaded' : file.folder}</td>
                    <td data-numeric>{formatBytes(file.bytes)}</td>
                    <td><time dateTime={file.modified_at}>{new Date(file.modified_at).toLocaleString()}</time></td>
                    <td>
                      <button
                        type="button"
                        className="button agent-files-download"
                        onClick={() => void download(file)}
                        disabled={busy === file.url}
                        aria-label={`Download ${file.name}`}
                      >
                        <DownloadIcon aria-hidden="true" />
                        Download
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </Modal>
  );
}
