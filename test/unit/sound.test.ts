// Desktop sound helpers: what counts as silence, and whole sample frames out of arbitrary pipe reads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { audible, FrameAligner } from '../../server/desktop/index.ts';


test('digital silence is not audible, any non-zero sample is, also past the first 64 KiB', () => {
  assert.not.ok(audible(Buffer.alloc(0)));
  assert.not.ok(audible(Buffer.alloc(200_000)));
  for (const at of [0, 1, 65_535, 65_536, 199_999]) {
    const b = Buffer.alloc(200_000);
    b[at] = 1;
    assert.ok(audible(b), `non-zero byte at ${at}`);
  }
});

test('frames stay whole across reads that end mid-sample', () => {
  const aligner = new FrameAligner();
  const input = Buffer.from(Array.from({ length: 64 }, (_, i) => i));
  const cuts = [3, 4, 9, 10, 31, 64];
  const out: Buffer[] = [];
  let from = 0;
  for (const to of cuts) {
    const chunk = aligner.push(input.subarray(from, to));
    assert.is(chunk.length % 4, 0, `read ${from}..${to}`);
    out.push(Buffer.from(chunk));
    from = to;
  }
  assert.ok(Buffer.concat(out).equals(input));
  assert.is(aligner.push(Buffer.alloc(0)).length, 0);
});

test.run();
