import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveRoute } from '../../src/lib/routes.ts';
import { markerPath, replayPath, sharesPath, threadRunsPath } from '../../src/lib/replay-api.ts';

const routes = suite('replay: routes and API paths');

routes('/replay/{runId} names the run; a non-numeric id is not found', () => {
  assert.equal(resolveRoute('/replay/17'), { name: 'replay', runId: 17 });
  assert.equal(resolveRoute('/replay/17/'), { name: 'replay', runId: 17 });
  assert.equal(resolveRoute('/replay/abc'), { name: 'not-found' });
  assert.equal(resolveRoute('/replay'), { name: 'not-found' });
  assert.equal(resolveRoute('/replay/1/2'), { name: 'not-found' });
});

routes('/replay/shared/{token} names the token as it was written (decoded), before the run route', () => {
  assert.equal(resolveRoute('/replay/shared/Ab-c_9'), { name: 'replay-shared', token: 'Ab-c_9' });
  assert.equal(resolveRoute('/replay/shared/a%2Bb'), { name: 'replay-shared', token: 'a+b' });
  assert.equal(resolveRoute('/replay/shared'), { name: 'not-found' });
  assert.equal(resolveRoute('/replay/shared/x/y'), { name: 'not-found' });
});

routes('the API paths of the contract', () => {
  assert.is(threadRunsPath(5), '/threads/5/runs');
  assert.is(replayPath({ kind: 'run', runId: 17 }), '/runs/17/replay');
  assert.is(markerPath({ kind: 'run', runId: 17 }, 3), '/runs/17/replay/markers/3');
  assert.is(sharesPath(17), '/runs/17/replay/shares');
  assert.is(replayPath({ kind: 'shared', token: 'a+b' }), '/replay-shares/by-token/a%2Bb');
  assert.is(markerPath({ kind: 'shared', token: 'tok' }, 0), '/replay-shares/by-token/tok/markers/0');
});

routes.run();
