// The audit actions the code may record (server/audit/actions.ts) are the ones the README's table lists.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { AUDIT_ACTIONS } from '../../server/audit/actions.ts';

const actions = suite('audit actions');

/** The backticked actions in the first column of the README's "Actions." table. */
function documented(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const table = readme.split('**Actions.**')[1]?.split('\n\n')[1] ?? '';
  return table.split('\n').slice(2).flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]));
}

actions('the README\'s table lists every action in the list, and nothing else', () => {
  const listed = documented();
  assert.ok(listed.length > 30, `found ${listed.length} actions in the README`);
  assert.equal([...listed].sort(), [...AUDIT_ACTIONS].sort());
  assert.is(new Set(AUDIT_ACTIONS).size, AUDIT_ACTIONS.length, 'each action once');
});

actions.run();
