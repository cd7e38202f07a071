// The agent's Files list (issue 50): name, where, size and date of each file, a download button per file that fetches
// the file's url with the session and hands it to the browser under its name, an empty state and a failed download.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FilesModal } from '../../src/screens/agent/files-modal.tsx';
import { formatBytes } from '../../src/lib/format-bytes.ts';
import { byRole, cleanup, click, FakeApi, getRole, json, renderScreen, settle, text, USER, waitFor } from './helpers/screen-harness.tsx';

const FILES = [
  {
    name: 'report.pdf', bytes: 1_572_864, modified_at: '2026-11-29T10:00:00Z', source: 'desktop', folder: 'Downloads',
    url: '/api/agents/7/files/desktop?path=Downloads%2Freport.pdf',
  },
  { name: 'brief.txt', bytes: 12, modified_at: '2026-11-28T09:00:00Z', source: 'upload', folder: null, url: '/api/agents/7/files/uploads/3' },
];

const ui = suite('Files modal');
let saved: { href: string; download: string }[] = [];
const realClick = HTMLAnchorElement.prototype.click;
ui.before.each(() => {
  saved = [];
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    saved.push({ href: this.href, download: this.download });
  };
});
ui.after.each(async () => {
  HTMLAnchorElement.prototype.click = realClick;
  await cleanup();
});

ui('lists each file with where it is, its size and date, newest first as the server sends them', async () => {
  await renderScreen(new FakeApi(USER).on('GET /api/agents/7/files', () => FILES), <FilesModal agentId={7} onClose={() => {}} />);
  assert.is(getRole('dialog').querySelector('h2')!.textContent, 'Files');
  const rows = [...document.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent));
  assert.equal(rows, [['report.pdf', 'Downloads', '1.5 MB'], ['brief.txt', 'Uploaded', '12 B']]);
  assert.is(document.querySelector('time')!.getAttribute('datetime'), '2026-11-29T10:00:00Z');
  assert.is(byRole('button', /^Download /).length, 2);
});

ui('Download fetches the file\'s url with the session and saves it under its name', async () => {
  const api = new FakeApi(USER)
    .on('GET /api/agents/7/files', () => FILES)
    .on('GET /api/agents/7/files/desktop', () => new Response(new Blob(['%PDF-1.7']), { headers: { 'Content-Type': 'application/octet-stream' } }));
  await renderScreen(api, <FilesModal agentId={7} onClose={() => {}} />);
  await click(getRole('button', 'Download report.pdf'));
  await waitFor(() => saved.length === 1, 'the file to be saved');
  assert.is(saved[0].download, 'report.pdf');
  const fetched = api.calls.find((c) => c.path === '/api/agents/7/files/desktop')!;
  assert.is(fetched.search, '?path=Downloads%2Freport.pdf');
});

ui('a failed download says so; an agent without files says where files come from', async () => {
  const api = new FakeApi(USER)
    .on('GET /api/agents/7/files', () => [FILES[1]])
    .on('GET /api/agents/7/files/uploads/3', () => json({ detail: 'File not found' }, 404));
  await renderScreen(api, <FilesModal agentId={7} onClose={() => {}} />);
  await click(getRole('button', 'Download brief.txt'));
  await waitFor(() => byRole('alert').length > 0, 'the failure');
  assert.match(getRole('alert').textContent!, 'Failed to download brief.txt: File not found');
  assert.is(saved.length, 0);
  await cleanup();
  await renderScreen(new FakeApi(USER).on('GET /api/agents/7/files', () => []), <FilesModal agentId={7} onClose={() => {}} />);
  await settle();
  assert.match(text(), 'No files yet');
});

ui('sizes read as on every other screen: whole bytes and KB, one decimal from MB on', () => {
  assert.is(formatBytes(1), '1 B');
  assert.is(formatBytes(1023), '1023 B');
  assert.is(formatBytes(1536), '2 KB');
  assert.is(formatBytes(250 * 1024 * 1024), '250.0 MB');
  assert.is(formatBytes(41.25 * 1024 ** 3), '41.3 GB');
});

ui.run();
