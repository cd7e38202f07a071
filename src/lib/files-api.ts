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

/** 1.2 MB, 340 KB, 12 bytes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
