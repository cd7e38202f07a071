// Microphone recording (src/lib/recorder.ts): Ogg Opus where the browser records it, else WebM; the
// microphone only; all chunks in one Blob of the recording's type; the microphone released on stop.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pickMimeType, recordMicrophone, type MediaEnv } from '../../src/lib/recorder.ts';

const mime = suite('recorder: the audio type');

mime('Ogg Opus first (Firefox), else WebM Opus (Chromium), else WebM, else the browser chooses', () => {
  const only = (...types: string[]) => (t: string) => types.includes(t);
  assert.is(pickMimeType(only('audio/ogg;codecs=opus', 'audio/webm;codecs=opus')), 'audio/ogg;codecs=opus');
  assert.is(pickMimeType(only('audio/ogg', 'audio/webm')), 'audio/ogg');
  assert.is(pickMimeType(only('audio/webm;codecs=opus', 'audio/webm')), 'audio/webm;codecs=opus');
  assert.is(pickMimeType(only('audio/webm')), 'audio/webm');
  assert.is(pickMimeType(only('audio/mp4')), '');
});

mime('a browser that throws from isTypeSupported counts as not supporting the type', () => {
  assert.is(pickMimeType((t) => {
    if (t.startsWith('audio/ogg')) throw new Error('not implemented');
    return t === 'audio/webm';
  }), 'audio/webm');
});

// ---

type FakeTrack = { stopped: boolean; stop(): void };

function fakeMedia(supported: string[]) {
  const asked: MediaStreamConstraints[] = [];
  const tracks: FakeTrack[] = [];
  const recorders: FakeRecorder[] = [];
  class FakeRecorder extends EventTarget {
    static isTypeSupported = (t: string) => supported.includes(t);
    state: 'inactive' | 'recording' = 'inactive';
    timeslice: number | undefined;
    ondataavailable: ((e: { data: Blob }) => void) | null = null;
    readonly mimeType: string;
    constructor(readonly stream: MediaStream, options?: MediaRecorderOptions) {
      super();
      this.mimeType = options?.mimeType ?? '';
      recorders.push(this);
    }
    start(timeslice?: number) {
      this.state = 'recording';
      this.timeslice = timeslice;
    }
    emit(text: string) {
      this.ondataavailable?.({ data: new Blob([text]) });
    }
    stop() {
      this.state = 'inactive';
      queueMicrotask(() => {
        this.emit('-last');
        this.dispatchEvent(new Event('stop'));
      });
    }
  }
  const env: MediaEnv = {
    getUserMedia: async (constraints) => {
      asked.push(constraints);
      const track: FakeTrack = { stopped: false, stop() { this.stopped = true; } };
      tracks.push(track);
      return { getTracks: () => [track] } as unknown as MediaStream;
    },
    MediaRecorder: FakeRecorder as unknown as typeof MediaRecorder,
  };
  return { env, asked, tracks, recorders };
}

const rec = suite('recorder: recording the microphone');

rec('asks for the microphone only, records the preferred type in 1 s slices, stops into one Blob', async () => {
  const media = fakeMedia(['audio/webm;codecs=opus', 'audio/webm']);
  const recording = await recordMicrophone(media.env);
  assert.equal(media.asked, [{ audio: true, video: false }]);
  const [recorder] = media.recorders;
  assert.is(recorder.mimeType, 'audio/webm;codecs=opus');
  assert.is(recorder.timeslice, 1000);
  assert.is(recording.mimeType, 'audio/webm;codecs=opus');
  recorder.emit('one');
  recorder.emit('two');
  assert.is(media.tracks[0].stopped, false);
  const blob = await recording.stop();
  assert.is(blob.type, 'audio/webm;codecs=opus');
  assert.is(await blob.text(), 'onetwo-last', 'the data delivered with the stop is included');
  assert.is(media.tracks[0].stopped, true, 'the microphone is released');
  assert.is(await recording.stop(), blob, 'stopping twice gives the same audio');
});

rec('a browser recording neither Ogg nor WebM picks its own type; the audio says audio/ogg only when it says nothing', async () => {
  const media = fakeMedia([]);
  const recording = await recordMicrophone(media.env);
  assert.is(media.recorders[0].mimeType, '');
  assert.is(recording.mimeType, 'audio/ogg');
});

rec('a refused microphone rejects and nothing records', async () => {
  const media = fakeMedia(['audio/ogg;codecs=opus']);
  media.env.getUserMedia = async () => {
    throw new DOMException('Permission denied', 'NotAllowedError');
  };
  try {
    await recordMicrophone(media.env);
    assert.unreachable('should reject');
  } catch (error) {
    assert.is((error as DOMException).name, 'NotAllowedError');
  }
  assert.is(media.recorders.length, 0);
});

mime.run();
rec.run();
