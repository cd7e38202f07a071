// A bad setting stops the real server's start at once: one line on stderr that names the variable, the value and
// what it must be, no stack trace, and a non-zero exit (server/main.ts, the config's one strict parser).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startMain } from './main-process.ts';

const BAD = [['PORT', 'abc'], ['SMTP_PORT', '-1'], ['AGENT_STORAGE_MB', 'lots']];

for (const [name, value] of BAD) {
  test(`${name}=${value} stops the start with one line naming ${name}`, async () => {
    const server = startMain({ [name]: value });
    try {
      assert.is.not(await server.exited, 0);
      assert.is(server.output().trim(), `Agent Workspace cannot start: ${name} must be a whole number ≥ 0, not "${value}"`);
    } finally {
      await server.remove();
    }
  });
}

test.run();
