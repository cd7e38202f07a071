import { hostname } from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { estimateTokens } from '../../server/models/estimate.ts';
import { ModelError } from '../../server/models/types.ts';
import { createOffline } from '../../server/models/offline.ts';
import { RESTART_ERROR, type Runner } from '../../server/runner/runner.ts';
import { call, newAgent, newUser, openSocket, testServer } from './helpers.ts';
import { scripted, swapRunner, text, toolUse, waitFor, type FakeDesktop } from './runner-helpers.ts';
import { TOPICS } from '../../server/realtime/topics.ts';

let runner: Runner & { desktops: any };

async function setup(provider = createOffline()) {
  if (runner) await runner.stop();
  runner = await swapRunner({ provider });
  const user = await newUser('runner');
  const agent = await newAgent(user.id);
  const post = (path: string, body: unknown = {}) => call(path, { token: user.token, body });
  const get = (path: string) => call(path, { token: user.token });
  const { db, bus } = (await testServer()).parts;
  const send = async (message: string) => (await post(`/api/threads/${agent.id}/create-new-thread`, { user_text: message })).body;
  const thread = async (id: number) => (await get(`/api/threads/${id}`)).body;
  const steps = async (id: number) => (await get(`/api/threads/${id}/steps?limit=500&offset=0`)).body.steps;
  const agentRow = async () => (await get(`/api/agents/${agent.id}`)).body;
  const play = (state: 'run' | 'run_all' | 'stop') => post(`/api/agents/${agent.id}/run-state`, { state });
  const finished = (id: number, ms = 5000) =>
    waitFor(async () => {
      const t = await thread(id);
      return !t.thread_running && (t.schedule_sequence === null || t.error_message) ? t : null;
    }, ms, `thread ${id} to finish`);
  const desktop = () => runner.desktops.all.get(agent.id) as FakeDesktop | undefined;
  return { user, agent, post, get, db, bus, send, thread, steps, agentRow, play, finished, desktop };
}

const runs = suite('runner');

runs.after(async () => {
  await runner?.stop();
});

runs('offline: "open a terminal and type hello" runs on the desktop, step by step, with traces', async () => {
  const s = await setup();
  const actionSocket = await openSocket(`/api/actions/agent/${s.agent.id}/ws?token=${s.user.token}`);
  const pushed: any[] = [];
  const t = await s.send('open a terminal and type hello');
  const off = s.bus.subscribe(TOPICS.threadSteps(t.id), (step) => pushed.push(structuredClone(step)));
  await s.play('run_all');
  const done = await s.finished(t.id);
  off();
  assert.is(done.error_message, '');
  assert.is(done.schedule_sequence, null);

  const desktop = s.desktop()!;
  assert.equal(desktop.actions.map((a) => a.action), ['mouse_move', 'left_click', 'type']);
  assert.is(desktop.typed, 'hello');

  const steps = await s.steps(t.id);
  assert.is(steps[0].user_text, 'open a terminal and type hello');
  const calls = steps.flatMap((st: any) => st.tool_calls);
  assert.equal(calls.map((c: any) => [c.name, c.status]), [['computer', 'done'], ['computer', 'done'], ['computer', 'done']]);
  assert.ok(steps[1].reasoning_text.includes('Plan (offline planner)'));
  // The plan is told once; the later steps say only where the run stands.
  assert.equal(steps.slice(2, 4).map((st: any) => st.reasoning_text), ['Step 2 of 3.', 'Step 3 of 3.']);
  assert.match(steps[steps.length - 1].assistant_text, /Offline model/);
  // each call was pushed as pending, then running, then done
  const statuses = pushed.filter((p) => p.sequence === 2).map((p) => p.tool_calls[0].status);
  assert.equal([...new Set(statuses)], ['pending', 'running', 'done']);

  const feed = (await s.get(`/api/messages/agent/${s.agent.id}?page=1&page_size=50`)).body.messages.reverse();
  assert.equal([...new Set(feed.map((m: any) => m.role))].sort(), ['assistant', 'reasoning', 'tool_call', 'user']);
  assert.ok(feed.filter((m: any) => m.role === 'tool_call').every((m: any) => m.assistant_data.status === 'done'));

  const event = await actionSocket.next((f) => f.kind === 'left_click');
  assert.is(event.x, 320 / 1280);
  actionSocket.ws.close();

  const traces = (await s.get(`/api/llm_traces/thread/${t.id}?limit=100`)).body.traces;
  assert.is(traces.length, 4);
  assert.ok(traces.every((tr: any) => tr.thread_name === 'Main: open a terminal and type hello' && tr.model === 'offline-planner-1'));
  assert.ok(traces.every((tr: any) => tr.input_tokens > 0 && tr.output_tokens > 0 && tr.estimated_cost === 0));
  const agent = await s.agentRow();
  assert.is(agent.agent_running, false);
  assert.is(agent.running_state, 'idle');
  assert.is(agent.target_run_state, 'run_all');
});

runs('run (play) works the queue head, then sets the agent back to stop', async () => {
  const s = await setup();
  const a = await s.send('take a screenshot');
  const b = await s.send('take a screenshot');
  const play = await s.play('run');
  assert.equal(play.body, { state: 'run' });
  await s.finished(a.id);
  await waitFor(async () => (await s.agentRow()).target_run_state === 'stop', 3000, 'agent to stop');
  await runner.idle();
  const second = await s.thread(b.id);
  assert.is(second.schedule_sequence, 1);
  assert.is((await s.steps(b.id)).length, 1, 'the second thread did not run');
  assert.is((await s.agentRow()).agent_running, false);
});

runs('run_all works through the queue in order', async () => {
  const order: string[] = [];
  const s = await setup(scripted([(req) => {
    const first = req.messages[0].content;
    order.push(typeof first === 'string' ? first : (first[0] as { text: string }).text);
    return [text('ok')];
  }]));
  const ids = [];
  for (const m of ['one', 'two', 'three']) ids.push((await s.send(m)).id);
  await s.play('run_all');
  for (const id of ids) await s.finished(id);
  assert.equal(order, ['one', 'two', 'three']);
  assert.is((await s.agentRow()).number_scheduled_threads, 0);
});

runs('stopping the agent during an action interrupts it; the thread stays queued and resumes', async () => {
  const s = await setup(scripted([[toolUse('t1', 'computer', { action: 'wait', duration: 30 })], [text('finished')]]));
  const t = await s.send('wait a long time');
  await s.play('run_all');
  await waitFor(() => s.desktop()?.actions.length, 3000, 'the action to start');
  const started = Date.now();
  const stop = await s.post('/api/agents/stop', { agent_id: s.agent.id, force_terminate: true });
  assert.is(stop.body.result, 'stopping');
  const stopped = await waitFor(async () => {
    const row = await s.thread(t.id);
    return !row.thread_running ? row : null;
  }, 3000, 'the run to stop');
  assert.ok(Date.now() - started < 2000, 'the 30 s wait was interrupted');
  assert.is(stopped.schedule_sequence, 1, 'still queued');
  assert.is(stopped.error_message, '');
  const steps = await s.steps(t.id);
  assert.is(steps[1].tool_calls[0].status, 'failed');
  assert.match(steps[1].tool_calls[0].output, /^Interrupted/);
  const feed = (await s.get(`/api/messages/agent/${s.agent.id}/latest?limit=5`)).body;
  assert.ok(feed.some((m: any) => m.role === 'warning'));
  assert.is((await s.agentRow()).agent_running, false);
  // play again: the interrupted call is answered as interrupted and the model finishes
  await s.play('run_all');
  const done = await s.finished(t.id);
  assert.is(done.error_message, '');
  assert.match((await s.steps(t.id)).at(-1).assistant_text, /finished/);
});

runs('stopping the thread during a model call aborts it and takes the thread off the queue', async () => {
  let aborted = false;
  let called = false;
  const s = await setup(scripted([(_req, signal) => new Promise((_, reject) => {
    called = true;
    signal!.addEventListener('abort', () => {
      aborted = true;
      reject(signal!.reason);
    });
  })]));
  const t = await s.send('think forever');
  await s.play('run_all');
  await waitFor(() => called, 3000, 'the model call');
  await s.post(`/api/threads/${t.id}/stop`);
  const row = await waitFor(async () => {
    const r = await s.thread(t.id);
    return !r.thread_running ? r : null;
  }, 3000, 'the run to stop');
  assert.ok(aborted);
  assert.is(row.schedule_sequence, null);
  assert.is(row.target_run_state, 'stop');
  assert.is(row.error_message, '');
});

runs('a model error ends the run with error_message, an error message and a trace', async () => {
  const s = await setup(scripted([() => {
    throw new ModelError('Anthropic API error 400 invalid_request_error: bad tools',
      { provider: 'anthropic', status: 400, response: { error: { message: 'bad tools' } } });
  }]));
  const t = await s.send('hello');
  await s.play('run_all');
  const row = await s.finished(t.id);
  assert.is(row.error_message, 'Model error: Anthropic API error 400 invalid_request_error: bad tools');
  assert.is(row.schedule_sequence, null);
  // The error message, the agent's stop and its flags are written after the thread's run ends: wait for them.
  const feed = await waitFor(async () => {
    const latest = (await s.get(`/api/messages/agent/${s.agent.id}/latest?limit=5`)).body;
    return latest[0]?.role === 'error' ? latest : null;
  }, 5000, 'the error message');
  assert.is(feed[0].assistant_data.text, row.error_message);
  const agent = await waitFor(async () => {
    const a = await s.agentRow();
    return a.target_run_state === 'stop' && !a.agent_running ? a : null;
  }, 5000, 'the agent to be stopped and idle');
  assert.is(agent.target_run_state, 'stop');
  const traces = (await s.get(`/api/llm_traces/thread/${t.id}?verbose=true`)).body.traces;
  assert.is(traces.length, 1);
  assert.match(traces[0].response.error, /bad tools/);
});

runs('a tool error ends the run; a bad tool input goes back to the model', async () => {
  const s = await setup(scripted([
    [toolUse('a', 'computer', { action: 'left_click', coordinate: [5000, 5000] })],
    (req) => {
      const last = req.messages.at(-1)!.content as any[];
      assert.ok(last[0].is_error && /outside/.test(last[0].content), 'the model sees the input error');
      return [toolUse('b', 'computer', { action: 'screenshot' })];
    },
  ]));
  runner.desktops.acquire(s.agent.id).then((d: FakeDesktop) => {
    d.screenshot = async () => {
      throw new Error('framebuffer lost');
    };
  });
  const t = await s.send('click far away');
  await s.play('run_all');
  const row = await s.finished(t.id);
  assert.is(row.error_message, 'The computer tool failed: framebuffer lost');
  const calls = (await s.steps(t.id)).flatMap((st: any) => st.tool_calls);
  assert.equal(calls.map((c: any) => c.status), ['failed', 'failed']);
});

runs('restart recovery fails runs of dead instances and leaves live ones alone', async () => {
  const s = await setup();
  const dead = await s.send('left by a crash');
  const live = await s.send('running elsewhere');
  await s.db.query(`UPDATE threads SET thread_running = true, run_owner = 'dead-instance' WHERE id = $1`, [dead.id]);
  await s.db.query(`INSERT INTO instances (id, host, pid) VALUES ('live-instance', 'elsewhere', 1) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`);
  await s.db.query(`UPDATE threads SET thread_running = true, run_owner = 'live-instance' WHERE id = $1`, [live.id]);
  await s.db.query('UPDATE agents SET agent_running = true WHERE id = $1', [s.agent.id]);
  assert.ok((await runner.recover()) >= 1);
  const row = await s.thread(dead.id);
  assert.is(row.thread_running, false);
  assert.is(row.error_message, RESTART_ERROR);
  assert.is(row.schedule_sequence, null);
  assert.is((await s.thread(live.id)).thread_running, true);
  const feed = (await s.get(`/api/messages/agent/${s.agent.id}/latest?limit=3`)).body;
  assert.ok(feed.some((m: any) => m.role === 'error' && m.assistant_data.text === RESTART_ERROR));
  // the live one dies too: once its heartbeat is stale it is recovered as well
  await s.db.query(`UPDATE instances SET heartbeat_at = now() - interval '1 hour' WHERE id = 'live-instance'`);
  await runner.recover();
  assert.is((await s.thread(live.id)).error_message, RESTART_ERROR);
  assert.is((await s.agentRow()).agent_running, false);
});

runs('a graceful shutdown pauses the run; the next runner resumes it', async () => {
  const s = await setup(scripted([[toolUse('w', 'computer', { action: 'wait', duration: 30 })], [text('resumed and done')]]));
  const t = await s.send('long job');
  await s.play('run_all');
  await waitFor(() => s.desktop()?.actions.length, 3000, 'the action to start');
  await runner.stop();
  const paused = await s.thread(t.id);
  assert.is(paused.thread_running, false);
  assert.is(paused.schedule_sequence, 1);
  assert.is(paused.error_message, '');
  runner = await swapRunner({ provider: scripted([[text('resumed and done')]]) });
  await s.play('run_all'); // swapRunner parks every agent; a real restart keeps the state
  const done = await s.finished(t.id);
  assert.is(done.error_message, '');
  assert.match((await s.steps(t.id)).at(-1).assistant_text, /resumed and done/);
});

runs('offline tools: notes, report and email', async () => {
  const s = await setup();
  const t = await s.send('write a note: buy milk, write a report Weekly check: all parts up (done) ' +
    'and draft an email to bob@example.com saying The check is done');
  await s.play('run_all');
  const row = await s.finished(t.id);
  assert.is(row.error_message, '');
  assert.is(row.approval_required, true);
  const notes = (await s.get(`/api/agents/${s.agent.id}/notes`)).body.notes;
  assert.is(notes, '- buy milk');
  const report = await s.db.one(
    'SELECT r.title, r.description, e.completion_rate, e.needs_review FROM reports r JOIN report_entries e ON e.report_id = r.id WHERE r.agent_id = $1',
    [s.agent.id]);
  assert.equal(report, { title: 'Weekly check', description: 'all parts up (done)', completion_rate: 1, needs_review: false });
  const mail = await s.db.one('SELECT role, outbound_state, to_address, text FROM comm_messages WHERE thread_id = $1', [t.id]);
  assert.equal(mail, { role: 'outbound', outbound_state: 'requires_approval', to_address: 'bob@example.com', text: 'The check is done' });
});

runs('offline sub-agent: its calls are listed under the parent step and its traces say Sub', async () => {
  const s = await setup();
  const t = await s.send('ask a sub-agent to take a screenshot');
  await s.play('run_all');
  const row = await s.finished(t.id);
  assert.is(row.error_message, '');
  const calls = (await s.steps(t.id)).flatMap((st: any) => st.tool_calls);
  assert.equal(calls.map((c: any) => [c.name, c.status]), [['sub_agent', 'done'], ['sub_agent/computer', 'done']]);
  const names = (await s.get(`/api/llm_traces/thread/${t.id}`)).body.traces.map((tr: any) => tr.thread_name);
  assert.equal(names, [
    'Main: ask a sub-agent to take a screenshot', 'Sub: take a screenshot', 'Sub: take a screenshot', 'Main: ask a sub-agent to take a screenshot',
  ]);
});

runs('without a desktop the offline model says so instead of acting', async () => {
  const s = await setup();
  await runner.stop();
  runner = await swapRunner({ provider: createOffline(), desktops: null });
  const t = await s.send('open a terminal');
  await s.play('run_all');
  await s.finished(t.id);
  const last = (await s.steps(t.id)).at(-1);
  assert.match(last.assistant_text, /no desktop is available/);
});

runs('input sent while a run is going reaches the model in the same run', async () => {
  let release!: () => void;
  let called = false;
  const gate = new Promise<void>((r) => (release = r));
  const s = await setup(scripted([
    async () => {
      called = true;
      await gate;
      return [toolUse('x', 'computer', { action: 'screenshot' })];
    },
    (req) => [text(`saw: ${JSON.stringify(req.messages.at(-1)!.content).includes('also this') ? 'yes' : 'no'}`)],
  ]));
  const t = await s.send('first');
  await s.play('run_all');
  await waitFor(() => called, 3000, 'the first model call');
  await s.post(`/api/threads/${t.id}/set-user-input`, { user_text: 'also this' });
  release();
  await s.finished(t.id);
  assert.is((await s.steps(t.id)).at(-1).assistant_text, 'saw: yes');
});

runs('a long run fits the model\'s context window: the task stays, the oldest turns go', async () => {
  // A 3,000-token window: messages may take 2,100; each turn below is ~500 tokens of text.
  const turns = Array.from({ length: 12 }, (_, i) => [text('x'.repeat(2000)), toolUse(`w${i}`, 'notes', { action: 'read' })]);
  const provider = { ...scripted([...turns, [text('done')]]), contextTokens: 3000 };
  const s = await setup(provider);
  const t = await s.send('the long task');
  await s.play('run_all');
  await s.finished(t.id);
  assert.is(provider.requests.length, 13);
  for (const [i, req] of provider.requests.entries()) {
    const tokens = estimateTokens(req.messages.map((m) => m.content));
    assert.ok(tokens <= 2100, `request ${i + 1}: ${tokens} tokens`);
    const first = req.messages[0].content;
    assert.match(typeof first === 'string' ? first : (first[0] as { text: string }).text, /^the long task/);
  }
  const last = provider.requests.at(-1)!.messages;
  assert.is(JSON.stringify(last[0]).split('Earlier turns were left out').length, 2, 'one note, however many cuts');
  assert.ok(JSON.stringify(last).includes('"w11"'), 'the newest turn is there');
  assert.not.ok(JSON.stringify(last).includes('"w0"'), 'the oldest is not');
  // The steps themselves keep everything: only what is sent is cut.
  const calls = (await s.steps(t.id)).flatMap((step: any) => step.tool_calls.map((c: any) => c.id));
  assert.equal(calls, turns.map((_, i) => `w${i}`));
});

runs('deleting a thread during its run ends the run quietly; the agent is not left running', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let called = false;
  const s = await setup(scripted([async () => {
    called = true;
    await gate;
    return [toolUse('x', 'computer', { action: 'screenshot' })];
  }]));
  const t = await s.send('doomed');
  await s.play('run_all');
  await waitFor(() => called, 3000, 'the model call');
  assert.is((await call(`/api/threads/${t.id}`, { method: 'DELETE', token: s.user.token })).status, 204);
  release();
  await runner.idle();
  const agent = await s.agentRow();
  assert.is(agent.agent_running, false);
  assert.equal(agent.threads, []);
});

runs('a desktop that cannot start ends the run with a readable error', async () => {
  const s = await setup();
  await runner.stop();
  const broken = {
    status: () => ({ available: true, provider: 'xvnc' as const }),
    acquire: async () => { throw new Error('Xvnc failed to start: no free display'); },
    running: () => null,
    stopAll: async () => {},
  };
  runner = await swapRunner({ provider: createOffline(), desktops: broken as any });
  const t = await s.send('take a screenshot');
  await s.play('run_all');
  const row = await s.finished(t.id);
  assert.is(row.error_message, "The agent's desktop could not start: Xvnc failed to start: no free display");
});

runs('after a crash on this host, the dead process\'s runs are failed at once despite a fresh heartbeat', async () => {
  const s = await setup();
  const t = await s.send('crashed mid-run');
  const dead = `${hostname()}:4194000:deadbeef`;
  await s.db.query(`INSERT INTO instances (id, host, pid) VALUES ($1, $2, 4194000)`, [dead, hostname()]);
  await s.db.query(`UPDATE threads SET thread_running = true, run_owner = $2 WHERE id = $1`, [t.id, dead]);
  await runner.recover();
  const row = await s.thread(t.id);
  assert.is(row.thread_running, false);
  assert.is(row.error_message, RESTART_ERROR);
});

runs.run();
