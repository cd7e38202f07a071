// A desktop's sleep writes its browser's cookies before the freeze, which takes seconds on a loaded machine; the idle
// sweep comes back every few hundred ms meanwhile. A second sleep while one is under way does nothing: no second
// flush, no second freeze.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RfbClient, type RfbTransport } from '../../server/desktop/rfb/client.ts';
import { RfbDesktop } from '../../server/desktop/rfb/desktop.ts';
import { serverHello, Wire } from './helpers/rfb-wire.ts';

const test = suite('desktop: one sleep at a time');

test('a sleep asked while the first is writing the cookies is refused; the first then freezes the desktop once', async () => {
  const wire = new Wire();
  const connecting = RfbClient.over(wire as unknown as RfbTransport, { frameInterval: 0 });
  wire.emit('data', serverHello(64, 32));
  const rfb = await connecting;
  let flushes = 0;
  let freezes = 0;
  let written!: () => void;
  const flushed = new Promise<void>((resolve) => (written = resolve));
  const desktop = new RfbDesktop(7, rfb, {
    freezer: { freeze: async () => (freezes++, true), thaw: () => {} },
    beforeSleep: () => (flushes++, flushed),
  });
  const first = desktop.sleep();
  const second = desktop.sleep();
  assert.is(flushes, 1, 'one flush');
  written();
  assert.equal(await Promise.all([first, second]), [true, false], 'the first sleeps, the second did nothing');
  assert.is(freezes, 1, 'one freeze');
  assert.ok(desktop.asleep);
  assert.is(await desktop.sleep(), false, 'asleep already');
  desktop.wake();
  rfb.close();
});

test.run();
