// A desktop's home or /tmp that filled up is told to the agent's owner in its chat (the desktop side, that the
// event comes when a `dd` fills the home, is in desktop-attacks.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { tellWhenStorageFull } from '../../server/threads/messages.ts';
import { call, newAgent, newUser, testServer } from './helpers.ts';

const notice = suite('storage-full notice');

notice('a full home becomes a warning in the agent\'s chat, for its owner only', async () => {
  const { parts } = await testServer();
  const [owner, stranger] = [await newUser(), await newUser()];
  const agent = await newAgent(owner.id, 'Filler');
  const desktops = new EventEmitter();
  tellWhenStorageFull(desktops, parts.db, parts.bus, parts.log);
  desktops.emit('storage-full', agent.id, 'home', 4072);
  const feed = async () => (await call(`/api/messages/agent/${agent.id}`, { token: owner.token })).body.messages as any[];
  const deadline = Date.now() + 10_000;
  while (!(await feed()).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const [message] = await feed();
  assert.is(message?.role, 'warning');
  assert.is(message.assistant_data.text, 'The desktop\'s home is full (4072 MB): programs on it cannot save files until something there is deleted.');
  assert.is((await call(`/api/messages/agent/${agent.id}`, { token: stranger.token })).status, 404);
});

notice.run();
