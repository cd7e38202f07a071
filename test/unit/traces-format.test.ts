import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  formatCost, formatDateTime, formatLatency, formatTime, formatTokens, NO_DATA, prettyJson, threadMarker,
} from '../../src/ui/trace-format.ts';
import { costByDayPath, threadNamesPath, traceListPath } from '../../src/lib/traces-api.ts';

const format = suite('trace formats');

format("says 'No data' for every missing value", () => {
  for (const fn of [formatTokens, formatCost, formatLatency]) {
    assert.is(fn(null), NO_DATA);
    assert.is(fn(undefined), NO_DATA);
    assert.is(fn(Number.NaN), NO_DATA);
  }
  assert.is(formatTime(null), NO_DATA);
  assert.is(formatDateTime('not a date'), NO_DATA);
  assert.is(prettyJson(undefined), NO_DATA);
  assert.is(prettyJson(null), NO_DATA);
});

format('marks thread names Main or Sub by their prefix', () => {
  assert.is(threadMarker('Main: write a note'), 'Main');
  assert.is(threadMarker('Sub 2: look around'), 'Sub');
  assert.is(threadMarker('Other'), null);
  assert.is(threadMarker(null), null);
});

format('formats tokens, cost and latency', () => {
  assert.is(formatTokens(1234567), '1,234,567');
  assert.is(formatCost(0), '$0.00');
  assert.is(formatCost(1.5), '$1.50');
  assert.is(formatCost(0.0042), '$0.0042');
  assert.is(formatCost(0.00001), '<$0.0001');
  assert.is(formatLatency(0), '<0.01 s');
  assert.is(formatLatency(0.001), '<0.01 s');
  assert.is(formatLatency(1.234), '1.23 s');
  assert.is(formatLatency(12.34), '12.3 s');
});

format('pretty-prints JSON with two spaces', () => {
  assert.is(prettyJson({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}');
});

format.run();

const paths = suite('trace API paths');

paths('build list, cost and thread-name queries without empty values', () => {
  assert.is(traceListPath({}, 1), '/llm_traces/?page=1&page_size=20');
  assert.is(
    traceListPath({ owner_id: 2, thread_name: 'Main: a b', id_from: 0, created_at_to: '2025-03-04 10:30' }, 3),
    '/llm_traces/?owner_id=2&thread_name=Main%3A+a+b&id_from=0&created_at_to=2025-03-04+10%3A30&page=3&page_size=20',
  );
  assert.is(costByDayPath({}), '/llm_traces/cost_by_day');
  assert.is(threadNamesPath(), '/llm_traces/thread_names');
  assert.is(threadNamesPath(4), '/llm_traces/thread_names?owner_id=4');
});

paths.run();
