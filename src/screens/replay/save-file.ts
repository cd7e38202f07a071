// Saves a blob made in the page as a file (the recording, the WebM video) through a temporary download link.

/** Long enough for the browser to start reading the blob; the URL then only holds memory. */
const REVOKE_AFTER_MS = 60_000;

export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
