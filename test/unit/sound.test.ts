// Desktop sound helpers: what counts as silence, and whole sample frames out of arbitrary pipe reads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { trimSilence, FrameAligner } from '../../server/desktop/start/sound.ts';


test('digital silence is trimmed from both ends of a read, to whole frames; all silence leaves nothing', () => {
  assert.is(trimSilence(Buffer.alloc(0)).length, 0);
  assert.is(trimSilence(Buffer.alloc(200_000)).length, 0);
  // One non-zero byte anywhere keeps exactly the frame that holds it, also past the first 64 KiB.
  for (const at of [0, 1, 3, 4, 65_535, 65_536, 199_999]) {
    const b = Buffer.alloc(200_000);
    b[at] = 1;
    const kept = trimSilence(b);
    assert.is(kept.length, 4, `non-zero byte at ${at}`);
    assert.is(kept.byteOffset - b.byteOffset, at - (at % 4), `frame of byte ${at}`);
  }
  // Silence between sounds stays: it is part of what plays.
  const b = Buffer.alloc(40);
  b[9] = 7;
  b[30] = 9;
  const kept = trimSilence(b);
  assert.is(kept.byteOffset - b.byteOffset, 8);
  assert.is(kept.length, 24);
  assert.is(kept[1], 7);
  assert.is(kept[22], 9);
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
