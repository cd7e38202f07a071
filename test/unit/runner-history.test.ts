// Fitting a long conversation into the model's context window.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message, UserBlock } from '../../server/models/types.ts';
import { CONTEXT_NOTE, fitContext } from '../../server/runner/history.ts';

const test = suite('runner history: context window');

/** A task, then `turns` rounds of assistant tool_use → user tool_result, each about `size` tokens. */
function conversation(turns: number, size = 1000): Message[] {
  const out: Message[] = [{ role: 'user', content: 'Do the task' }];
  for (let i = 1; i <= turns; i++) {
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'computer', input: { action: 'type', text: 'x'.repeat(size * 4) } }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `done ${i}` }] });
  }
  return out;
}

const ids = (messages: Message[]) => messages.flatMap((m) => (typeof m.content === 'string'
  ? []
  : (m.content as any[]).map((b) => b.id ?? b.tool_use_id).filter(Boolean)));

test('a conversation that fits is returned as it is', () => {
  const messages = conversation(5);
  assert.is(fitContext(messages, { max: 10_000, keepImages: 3 }), messages);
});

test('over the limit: the task stays, the oldest turns go down to the target, tool results keep their tool_use', () => {
  const messages = conversation(40);
  const fitted = fitContext(messages, { max: 20_000, target: 10_000, keepImages: 3 });
  assert.is(fitted[0].role, 'user');
  const first = fitted[0].content as UserBlock[];
  assert.equal(first[0], { type: 'text', text: 'Do the task' });
  assert.is((first[1] as any).text, CONTEXT_NOTE);
  assert.is(fitted[1].role, 'assistant');
  // Roles alternate, and every tool_result follows its own tool_use.
  fitted.forEach((m, i) => assert.is(m.role, i % 2 === 0 ? 'user' : 'assistant'));
  for (let i = 2; i < fitted.length; i += 2) {
    const use = (fitted[i - 1].content as any[])[0];
    const result = (fitted[i].content as any[])[0];
    assert.is(result.tool_use_id, use.id);
  }
  // The newest turns are the ones kept, about 10 of 40.
  const kept = ids(fitted).filter((id) => id.startsWith('t'));
  assert.is(kept.at(-1), 't40');
  assert.ok(kept.length >= 16 && kept.length <= 20, `${kept.length / 2} turns kept`);
});

test('what the user wrote in the turns that go is kept', () => {
  const messages = conversation(30);
  (messages[4].content as UserBlock[]).push({ type: 'text', text: 'Also save it as PDF' });
  const fitted = fitContext(messages, { max: 10_000, target: 5_000, keepImages: 3 });
  assert.ok(fitted.length < messages.length);
  assert.ok((fitted[0].content as UserBlock[]).some((b) => b.type === 'text' && b.text === 'Also save it as PDF'));
});

test('cutting again replaces the note instead of adding another', () => {
  let messages = conversation(20);
  (messages[2].content as UserBlock[]).push({ type: 'text', text: 'Keep this' });
  for (let round = 0; round < 5; round++) {
    messages = fitContext(messages, { max: 6_000, target: 3_000, keepImages: 3 });
    const n = messages.length;
    messages.push(...conversation(4).slice(1).map((m, i) => (i % 2 === 0
      ? { ...m, content: [{ ...(m.content as any[])[0], id: `r${round}-${i}` }] }
      : { ...m, content: [{ ...(m.content as any[])[0], tool_use_id: `r${round}-${i - 1}` }] })));
    assert.ok(messages.length > n);
  }
  const first = fitContext(messages, { max: 6_000, target: 3_000, keepImages: 3 })[0].content as UserBlock[];
  assert.equal(first.map((b) => (b as any).text), ['Do the task', CONTEXT_NOTE, 'Keep this']);
});

test('screenshots count only as sent: the older ones are notes, so they do not force a cut', () => {
  const png = Buffer.alloc(24);
  png.writeUInt32BE(0x89504e47, 0);
  png.writeUInt32BE(1280, 16);
  png.writeUInt32BE(800, 20);
  const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: png.toString('base64') } };
  const messages = conversation(60, 10);
  for (let i = 2; i < messages.length; i += 2) (messages[i].content as any[])[0].content = [image];
  // 60 screenshots of ~1366 tokens would be ~82k; as sent (3 of them) the whole thing is ~5k.
  assert.is(fitContext(messages, { max: 20_000, keepImages: 3 }), messages);
});

test.run();
