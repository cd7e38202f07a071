// The offline model driving a real Xvnc desktop through the desktop module: it clicks the terminal,
// types a command and presses Enter, and the command's file appears in the agent's home.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { performAction } from '../../server/desktop/index.ts';
import type { LocalDesktops } from '../../server/desktop/place/local-desktops.ts';
import { testDesktops } from './desktop-helpers.ts';
import { createOffline } from '../../server/models/offline.ts';
import type { Runner } from '../../server/runner/runner.ts';
import { call, newAgent, newUser, openSocket } from './helpers.ts';
import { swapRunner, waitFor } from './runner-helpers.ts';

const desktop = suite('runner on a real desktop');
const haveXvnc = ['/usr/bin/Xvnc', '/usr/local/bin/Xvnc'].some((p) => existsSync(p));
let runner: Runner | undefined;
let desktops: LocalDesktops | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'aw-runner-desktop-'));

desktop.after(async () => {
  await runner?.stop();
  await desktops?.stopAll();
  // The browser's last cache writes may still land while its processes exit.
  await new Promise((r) => setTimeout(r, 300));
  try {
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  } catch (err) {
    console.error(`    (could not remove ${dataDir}: ${(err as Error).message})`);
  }
});

desktop('offline: "open a terminal, type … and press enter" runs the command in the desktop\'s terminal', async () => {
  if (!haveXvnc) {
    if (process.env.CI) assert.unreachable('Xvnc is missing on CI (.ci/run installs it)');
    console.log('\n    SKIPPED: Xvnc is not installed (Debian package tigervnc-standalone-server); the real-desktop run was not tested.');
    return;
  }
  // The default apps: a browser starting up next to the terminal may take the focus meanwhile.
  desktops = testDesktops({
    dataDir, log: { info: () => {}, error: (m) => process.env.TEST_VERBOSE && console.error(m) }, config: { provider: 'xvnc', displayBase: 170 },
  });
  assert.ok(desktops.status().available, desktops.status().reason);
  runner = await swapRunner({ provider: createOffline(), desktops, performAction });
  const user = await newUser('desk');
  const agent = await newAgent(user.id);
  // The run starts the desktop itself (cold), as when nobody opened the agent before.

  const actions = await openSocket(`/api/actions/agent/${agent.id}/ws?token=${user.token}`);
  const tag = `hello-${Date.now().toString(36)}`;
  const thread = (await call(`/api/threads/${agent.id}/create-new-thread`, {
    token: user.token, body: { user_text: `open a terminal, type "echo ${tag} > proof.txt" and press enter` },
  })).body;
  await call(`/api/agents/${agent.id}/run-state`, { token: user.token, body: { state: 'run_all' } });
  const done = await waitFor(async () => {
    const t = (await call(`/api/threads/${thread.id}`, { token: user.token })).body;
    return !t.thread_running && (t.schedule_sequence === null || t.error_message) ? t : null;
  }, 60_000, 'the run'); // a cold, contained desktop with a browser comes first
  assert.is(done.error_message, '');

  const proof = join(dataDir, 'desktops', `agent-${agent.id}`, 'proof.txt');
  await waitFor(() => existsSync(proof) && readFileSync(proof, 'utf8').trim() === tag, 5000, 'the command to run in the terminal');
  const steps = (await call(`/api/threads/${thread.id}/steps?limit=100`, { token: user.token })).body.steps;
  assert.equal(steps.flatMap((s: any) => s.tool_calls).map((c: any) => [c.input.action, c.status]),
    [['mouse_move', 'done'], ['left_click', 'done'], ['type', 'done'], ['key', 'done']]);
  const click = await actions.next((f) => f.kind === 'click');
  assert.ok(click.x > 0.2 && click.x < 0.3, `cursor x as a fraction: ${click.x}`);
  actions.ws.close();
  const traces = (await call(`/api/llm_traces/thread/${thread.id}?verbose=true`, { token: user.token })).body.traces;
  assert.is(traces.length, 5);
  // the model saw real screenshots (1280x800 PNGs; the stored request keeps only their size)
  assert.match(JSON.stringify(traces[1].request), /base64 characters omitted/);
});

desktop('with room for one desktop, two agents\' runs both finish: the second waits for the first\'s desktop, which it did not take away', async () => {
  if (!haveXvnc) {
    if (process.env.CI) assert.unreachable('Xvnc is missing on CI (.ci/run installs it)');
    return void console.log('\n    SKIPPED: Xvnc is not installed; the desktop queue was not tested.');
  }
  await runner?.stop();
  await desktops?.stopAll();
  desktops = testDesktops({
    dataDir, log: { info: () => {}, error: (m) => process.env.TEST_VERBOSE && console.error(m) },
    config: { provider: 'xvnc', apps: ['terminal'], displayBase: 180, max: 1 },
  });
  const starts: number[] = [];
  desktops.on('started', (d) => starts.push(d.agentId));
  runner = await swapRunner({ provider: createOffline(), desktops, performAction });
  const user = await newUser('queue');
  const agents = [await newAgent(user.id), await newAgent(user.id)];
  const threads = [];
  for (const [i, agent] of agents.entries()) {
    threads.push((await call(`/api/threads/${agent.id}/create-new-thread`, {
      token: user.token, body: { user_text: `open a terminal, type "echo queued-${i} > queued.txt" and press enter` },
    })).body);
  }
  // Both at once: each run marks its desktop as in use; the second waits for room instead of stopping the first's.
  await Promise.all(agents.map((a) => call(`/api/agents/${a.id}/run-state`, { token: user.token, body: { state: 'run_all' } })));
  const ended = await Promise.all(threads.map((t) => waitFor(async () => {
    const now = (await call(`/api/threads/${t.id}`, { token: user.token })).body;
    return !now.thread_running && (now.schedule_sequence === null || now.error_message) ? now : null;
  }, 120_000, `thread ${t.id}'s run`)));
  assert.equal(ended.map((t) => t.error_message), ['', ''], 'neither run failed');
  for (const [i, agent] of agents.entries()) {
    const proof = join(dataDir, 'desktops', `agent-${agent.id}`, 'queued.txt');
    await waitFor(() => existsSync(proof) && readFileSync(proof, 'utf8').trim() === `queued-${i}`, 5000, `agent ${i}'s command`);
  }
  assert.equal(starts.sort(), agents.map((a) => a.id).sort(), 'one start per agent: no desktop was stopped under a run');
});

desktop.run();
