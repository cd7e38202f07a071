import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminToken, call, newAgent, newUser, openSocket, testServer } from './helpers.ts';
import { createLog } from '../../server/ops/log.ts';
import { statfs } from 'node:fs/promises';

/** The value of one sample line (`name{labels} value`), 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const metrics = suite('ops: GET /api/metrics');

metrics('anonymous is 401, a user 403 (also impersonating nobody), an admin 200 in Prometheus text', async () => {
  const anonymous = await call('/api/metrics');
  assert.is(anonymous.status, 401);
  assert.is(anonymous.body.detail, 'Authentication required');
  const { token, id } = await newUser();
  const user = await call('/api/metrics', { token });
  assert.is(user.status, 403);
  assert.is(user.body.detail, 'Forbidden: Admins only');
  assert.is((await call('/api/metrics', { token, headers: { 'X-Impersonate-User-Id': String(id) } })).status, 403);
  const admin = await call('/api/metrics', { token: await adminToken() });
  assert.is(admin.status, 200);
  assert.match(admin.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  assert.match(admin.body, /# TYPE aw_http_requests_total counter/);
  assert.match(admin.body, /# TYPE aw_http_request_duration_seconds histogram/);
  for (const gauge of ['aw_open_sockets', 'aw_runs_in_progress', 'aw_queue_depth', 'aw_desktops_running']) {
    assert.match(admin.body, new RegExp(`^${gauge} \\d+$`, 'm'), gauge);
  }
});

metrics('the data directory\'s free space, size and reserve are gauges, as statfs sees them; the Ops Dashboard reads the same', async () => {
  const { parts } = await testServer();
  const token = await adminToken();
  const text = (await call('/api/metrics', { token })).body as string;
  for (const gauge of ['aw_data_dir_free_bytes', 'aw_data_dir_size_bytes', 'aw_data_dir_reserve_bytes']) {
    assert.match(text, new RegExp(`^# TYPE ${gauge} gauge$`, 'm'), gauge);
  }
  const fs = await statfs(parts.config.dataDir);
  const size = sample(text, 'aw_data_dir_size_bytes');
  assert.is(size, fs.blocks * fs.bsize);
  // Free space moves with whatever else writes to the disk: close to what statfs says now.
  assert.ok(Math.abs(sample(text, 'aw_data_dir_free_bytes') - fs.bavail * fs.bsize) < 256 * 1024 * 1024);
  assert.is(sample(text, 'aw_data_dir_reserve_bytes'), Math.min(1024 ** 3, Math.floor(size * 0.05)));
  const ops = await call('/api/admin/storage', { token });
  assert.is(ops.status, 200);
  assert.is(ops.body.total_bytes, size);
  assert.is(ops.body.reserve_bytes, sample(text, 'aw_data_dir_reserve_bytes'));
  assert.type(ops.body.free_bytes, 'number');
  assert.is(ops.body.low, ops.body.free_bytes < ops.body.reserve_bytes);
  const { token: userToken } = await newUser();
  assert.is((await call('/api/admin/storage', { token: userToken })).status, 403);
});

metrics('METRICS_TOKEN lets a scraper in; a wrong one does not', async () => {
  const { parts } = await testServer();
  const before = parts.config.metricsToken;
  parts.config.metricsToken = 'scrape-secret-123';
  try {
    assert.is((await call('/api/metrics', { token: 'scrape-secret-123' })).status, 200);
    assert.is((await call('/api/metrics', { token: 'scrape-secret-124' })).status, 401);
  } finally {
    parts.config.metricsToken = before;
  }
});

metrics('request counts and histograms move by route pattern, not raw path; sockets are counted', async () => {
  const admin = await adminToken();
  const { token, id } = await newUser();
  const agent = await newAgent(id);
  const series = (status: number) => `aw_http_requests_total{method="GET",route="/agents/:id",status="${status}"}`;
  const before = (await call('/api/metrics', { token: admin })).body;
  assert.is((await call(`/api/agents/${agent.id}`, { token })).status, 200);
  assert.is((await call(`/api/agents/${agent.id}`, { token })).status, 200);
  assert.is((await call('/api/agents/99999999', { token })).status, 404);
  await call('/api/no/such/route');
  const socket = await openSocket(`/api/messages/agent/${agent.id}/ws?token=${encodeURIComponent(token)}`);
  const after = (await call('/api/metrics', { token: admin })).body;
  socket.ws.close();
  assert.is(sample(after, series(200)) - sample(before, series(200)), 2);
  assert.is(sample(after, series(404)) - sample(before, series(404)), 1);
  const count = `aw_http_request_duration_seconds_count{method="GET",route="/agents/:id"}`;
  assert.is(sample(after, count) - sample(before, count), 3);
  assert.ok(sample(after, `aw_http_request_duration_seconds_bucket{method="GET",route="/agents/:id",le="+Inf"}`) >= 3);
  assert.not.match(after, `route="/agents/${agent.id}"`);
  assert.ok(sample(after, 'aw_http_requests_total{method="GET",route="unmatched",status="404"}') >= 1);
  assert.ok(sample(after, 'aw_open_sockets') >= 1);
});

const logs = suite('ops: JSON logs with request ids');

logs('LOG_FORMAT=json writes one object a line: time, level, msg and the fields given', () => {
  const out: string[] = [];
  const err: string[] = [];
  const log = createLog('json', (l) => out.push(l), (l) => err.push(l));
  log.info('GET /api/health 200 1.2ms', { request_id: 'abc-1', status: 200 });
  log.error('unhandled error: boom', { request_id: 'abc-2' });
  const info = JSON.parse(out[0]);
  assert.equal(Object.keys(info), ['time', 'level', 'msg', 'request_id', 'status']);
  assert.ok(!Number.isNaN(Date.parse(info.time)));
  assert.equal({ ...info, time: 'x' }, { time: 'x', level: 'info', msg: 'GET /api/health 200 1.2ms', request_id: 'abc-1', status: 200 });
  assert.equal({ ...JSON.parse(err[0]), time: 'x' }, { time: 'x', level: 'error', msg: 'unhandled error: boom', request_id: 'abc-2' });
});

logs('each request is logged once with its id, which the response carries as X-Request-Id', async () => {
  const { parts } = await testServer();
  const lines: any[] = [];
  const [log, logRequests] = [parts.log, parts.config.logRequests];
  parts.log = createLog('json', (l) => lines.push(JSON.parse(l)), () => {});
  parts.config.logRequests = true;
  try {
    const { token, id } = await newUser();
    const res = await call(`/api/users/me`, { token });
    const given = await call('/api/health', { headers: { 'X-Request-Id': 'trace-42.a' } });
    const ugly = await call('/api/health', { headers: { 'X-Request-Id': 'no spaces or "quotes"' } });
    // 'finish' may fire just after the client has the body.
    const logged = () => lines.some((l) => l.path === '/api/users/me') && lines.filter((l) => l.route === '/health').length >= 2;
    for (const t0 = Date.now(); !logged() && Date.now() - t0 < 5000;) {
      await new Promise((r) => setImmediate(r));
    }
    const mine = lines.findLast((l) => l.path === '/api/users/me');
    assert.ok(mine, JSON.stringify(lines));
    assert.equal(Object.keys(mine), ['time', 'level', 'msg', 'request_id', 'method', 'path', 'route', 'status', 'ms']);
    assert.is(mine.request_id, res.headers.get('x-request-id'));
    assert.equal([mine.level, mine.method, mine.route, mine.status], ['info', 'GET', '/users/me', 200]);
    assert.is(typeof mine.ms, 'number');
    assert.is(res.body.id, id);
    assert.is(given.headers.get('x-request-id'), 'trace-42.a');
    assert.ok(lines.some((l) => l.request_id === 'trace-42.a' && l.route === '/health'));
    assert.match(ugly.headers.get('x-request-id')!, /^[0-9a-f]{8}-[0-9a-z]+$/);
  } finally {
    parts.log = log;
    parts.config.logRequests = logRequests;
  }
});

metrics.run();
logs.run();
