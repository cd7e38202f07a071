import {
  ADMIN, byRole, cleanup, click, deferred, FakeApi, getRole, json, press, renderScreen, settle, text, type, type Call,
} from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentEditorModal } from '../../src/screens/agent/editor/agent-editor-modal.tsx';

const TEXTS = { 'system-prompt': ['system_prompt', 'You are Alice.'], notes: ['notes', '# Notes'], instructions: ['instructions', 'Be brief.'] } as const;

/** An API serving agent 7's three texts and accepting their updates. */
function textsApi() {
  const api = new FakeApi(ADMIN);
  for (const [path, [field, value]] of Object.entries(TEXTS)) {
    api.on(`GET /api/agents/7/${path}`, () => ({ [field]: value }));
    api.on(`PUT /api/agents/7/${path}`, (call: Call) => call.body);
  }
  return api;
}

let closed = 0;
let saved = 0;
const editor = () => <AgentEditorModal agentId={7} onClose={() => closed++} onSaved={() => saved++} />;
const textarea = (label: string) => document.querySelector<HTMLTextAreaElement>(`textarea[aria-label="${label}"]`)!;
const saveButton = () => getRole('button', /^(Save Changes|Saving\.\.\.)$/) as HTMLButtonElement;
const puts = (api: FakeApi) => api.calls.filter((c) => c.method === 'PUT').map((c) => [c.path, c.body]);

const editorSuite = suite('Agent editor modal');
editorSuite.before.each(() => {
  closed = 0;
  saved = 0;
});
editorSuite.after.each(cleanup);

editorSuite('shows Loading data... while the three texts load, all requested at once', async () => {
  const api = new FakeApi(ADMIN);
  const answers = Object.entries(TEXTS).map(([path, [field, value]]) => {
    const answer = deferred<Response>();
    api.on(`GET /api/agents/7/${path}`, () => answer.promise);
    return () => answer.resolve(json({ [field]: value }));
  });
  await renderScreen(api, editor());
  assert.match(text(), 'Loading data...');
  const texts = api.apiCalls().map((c) => c.path).filter((p) => !p.endsWith('/supervision')).sort();
  assert.equal(texts, ['/api/agents/7/instructions', '/api/agents/7/notes', '/api/agents/7/system-prompt']);
  assert.ok(saveButton().disabled, 'nothing to save yet');
  for (const answer of answers) answer();
  await settle();
  assert.not.match(text(), 'Loading data...');
  assert.is(textarea('System Prompt').value, 'You are Alice.');
});

editorSuite('has the tabs System Prompt, notes.md and Instructions, each a text area', async () => {
  await renderScreen(textsApi(), editor());
  assert.equal(byRole('tab').map((t) => t.textContent), ['System Prompt', 'notes.md', 'Instructions']);
  assert.is(getRole('tab', 'System Prompt').getAttribute('aria-selected'), 'true');
  await click(getRole('tab', 'Instructions'));
  assert.is(getRole('tab', 'Instructions').getAttribute('aria-selected'), 'true');
  assert.not.ok(textarea('Instructions').closest('[role="tabpanel"]')!.hasAttribute('hidden'));
  assert.is(textarea('Instructions').value, 'Be brief.');
  await press(getRole('tab', 'Instructions'), 'ArrowRight');
  assert.is(getRole('tab', 'System Prompt').getAttribute('aria-selected'), 'true', 'arrow keys wrap around');
});

function guardApi() {
  const api = textsApi();
  const rules = { repeat_limit: 5, cost_cap_cents: 200, max_calls: 200 };
  api.on('GET /api/agents/7/supervision', () => ({ ...rules, defaults: rules }));
  api.on('PUT /api/agents/7/supervision', (call: Call) => ({ ...rules, ...(call.body as object), defaults: rules }));
  return api;
}
const guardInput = (label: string) =>
  [...document.querySelectorAll('label.guard-field')].find((l) => l.querySelector('span')?.textContent === label)!.querySelector('input')!;
const guardPuts = (api: FakeApi) => puts(api).filter(([path]) => path === '/api/agents/7/supervision').map(([, body]) => body);

editorSuite('the runaway guard\'s rules show below the texts; unchanged, they are not sent (issue 19)', async () => {
  const api = guardApi();
  await renderScreen(api, editor());
  await settle();
  assert.is(guardInput('Cost since your last message, USD').value, '2');
  assert.is(guardInput('Model calls since your last message').value, '200');
  await click(saveButton());
  await settle();
  assert.equal(guardPuts(api), []);
});

editorSuite('changed rules are saved with the texts (the cost in USD, sent as cents)', async () => {
  const api = guardApi();
  await renderScreen(api, editor());
  await settle();
  await type(guardInput('Same action on an unchanged screen, times in a row'), '3');
  await type(guardInput('Cost since your last message, USD'), '0.5');
  await click(saveButton());
  await settle();
  assert.equal(guardPuts(api), [{ repeat_limit: 3, cost_cap_cents: 50, max_calls: 200 }]);
  assert.is(saved, 1);
});

editorSuite('a failed load shows the detail and Retry loads again', async () => {
  const api = textsApi();
  let fail = true;
  api.on('GET /api/agents/7/notes', () => (fail ? json({ detail: 'Agent not found' }, 404) : { notes: '# Notes' }));
  await renderScreen(api, editor());
  assert.is(getRole('alert').querySelector('p')!.textContent, 'Agent not found');
  assert.ok(saveButton().disabled);
  fail = false;
  await click(getRole('button', 'Retry'));
  await settle();
  assert.is(byRole('alert').length, 0);
  await click(getRole('tab', 'notes.md'));
  assert.is(textarea('notes.md').value, '# Notes');
});

editorSuite('Save Changes sends the three texts, shows Saving... meanwhile, then closes', async () => {
  const api = textsApi();
  const answer = deferred<Response>();
  api.on('PUT /api/agents/7/instructions', () => answer.promise);
  await renderScreen(api, editor());
  await type(textarea('System Prompt'), 'You are Bob.');
  await click(getRole('tab', 'notes.md'));
  await type(textarea('notes.md'), '- [safe](https://example.com)');
  await click(saveButton());
  assert.is(saveButton().textContent, 'Saving...');
  assert.ok(saveButton().disabled);
  // All three are on their way before any answers: they go in parallel.
  assert.equal(puts(api).sort(), [
    ['/api/agents/7/instructions', { instructions: 'Be brief.' }],
    ['/api/agents/7/notes', { notes: '- [safe](https://example.com)' }],
    ['/api/agents/7/system-prompt', { system_prompt: 'You are Bob.' }],
  ]);
  assert.is(closed, 0);
  answer.resolve(json({ instructions: 'Be brief.' }));
  await settle();
  assert.is(saved, 1);
  assert.is(closed, 1);
});

editorSuite('a failed save shows the detail and keeps the edits', async () => {
  const api = textsApi();
  api.on('PUT /api/agents/7/notes', () => json({ detail: [{ loc: ['body', 'notes'], msg: 'notes must be at most 200000 characters' }] }, 422));
  await renderScreen(api, editor());
  await type(textarea('System Prompt'), 'Changed');
  await click(saveButton());
  await settle();
  assert.is(getRole('alert').textContent, 'notes must be at most 200000 characters');
  assert.is(saveButton().textContent, 'Save Changes');
  assert.is(textarea('System Prompt').value, 'Changed');
  assert.is(closed, 0);
});

editorSuite('Cancel and Escape close it without saving', async () => {
  const api = textsApi();
  await renderScreen(api, editor());
  await click(getRole('button', 'Cancel'));
  await press(document.body, 'Escape');
  assert.is(closed, 2);
  assert.is(puts(api).length, 0);
});

editorSuite('notes.md switches between the text and its rendered preview', async () => {
  await renderScreen(textsApi(), editor());
  await click(getRole('tab', 'notes.md'));
  assert.is(getRole('button', 'Edit').getAttribute('aria-pressed'), 'true');
  await click(getRole('button', 'Preview'));
  assert.is(getRole('button', 'Preview').getAttribute('aria-pressed'), 'true');
  assert.is(document.querySelector('textarea[aria-label="notes.md"]'), null);
  assert.is(getRole('region', 'notes.md preview').querySelector('.markdown h1')?.textContent, 'Notes');
  await click(getRole('button', 'Edit'));
  assert.is(textarea('notes.md').value, '# Notes');
});

editorSuite.run();
