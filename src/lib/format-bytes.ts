// One way to write a size on every screen (the Ops disk panel, the agent's files, a message's attachments).
const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** 1024-based, whole bytes and KB, one decimal from MB on: '12 B', '340 KB', '41.2 GB'. */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit < 2 ? Math.round(value) : value.toFixed(1)} ${UNITS[unit]}`;
}
