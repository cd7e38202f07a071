// The agent's files (issue 50): its uploads and what its desktop holds in ~/Desktop and ~/Downloads.
import { request, TIMEOUTS } from './http.ts';
import { saveBlob } from './save-blob.ts';

export type AgentFile = {
  name: string;
  bytes: number;
  modified_at: string;
  source: 'upload' | 'desktop';
  /** 'Desktop' or 'Downloads' for a desktop file, null for an upload. */
  folder: string | null;
  /** Where it downloads from: a path under /api. */
  url: string;
};

export const agentFilesPath = (agentId: number) => `/agents/${agentId}/files`;

/** Downloads the file and hands it to the browser under its name. */
export async function downloadAgentFile(file: AgentFile): Promise<void> {
  const blob = await request<Blob>(file.url.replace(/^\/api/, ''), { parse: 'blob', timeout: TIMEOUTS.long });
  saveBlob(blob, file.name);
}
