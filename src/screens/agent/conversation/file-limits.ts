// The chat's per-file size cap (spec §5 "Files", §9): files over 100 MB are refused with a message
// shown for 5 s; the other files of the same pick are still uploaded.

export const MAX_FILE_BYTES = 100 * 1024 * 1024;
export const FILE_ERROR_MS = 5000;

export function splitBySize<T extends { size: number }>(files: readonly T[], max = MAX_FILE_BYTES): { accepted: T[]; rejected: T[] } {
  const accepted: T[] = [];
  const rejected: T[] = [];
  for (const file of files) (file.size > max ? rejected : accepted).push(file);
  return { accepted, rejected };
}

/** The message for the refused files, or null when none was refused. */
export function oversizeMessage(rejected: readonly { name: string }[]): string | null {
  if (rejected.length === 0) return null;
  if (rejected.length === 1) return `${rejected[0].name} exceeds the 100MB limit and cannot be uploaded.`;
  return `${rejected.length} files exceed the 100MB limit...`;
}
