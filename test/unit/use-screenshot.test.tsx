// useScreenshot: the screenshot is fetched as a blob per address; while held (the agent screen's live view
// covers it) the image shown stays and a new address is not fetched, and letting go fetches only an address
// not fetched yet.
import { cleanup, FakeApi, renderScreen, settle, USER, waitFor } from './helpers/screen-harness.tsx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { act, useState } from 'react';
import { useScreenshot } from '../../src/lib/use-screenshot.ts';

type Props = { url: string | null; hold: boolean };
let setProps: (props: Props) => void = () => {};

function Probe({ initial }: { initial: Props }) {
  const [props, set] = useState(initial);
  setProps = set;
  const src = useScreenshot(props.url, props.hold);
  return <img id="shot" alt="" src={src ?? undefined} />;
}

const shot = () => document.querySelector<HTMLImageElement>('#shot')!.getAttribute('src');
const update = (props: Props) => act(async () => setProps(props));

/** The API, answering each screenshot address with an image; `asked` lists the versions asked for. */
function screenshotApi() {
  const asked: string[] = [];
  const api = new FakeApi(USER).on('GET /api/agents/7/screenshot', (call) => {
    asked.push(new URLSearchParams(call.search).get('v')!);
    return new Response(new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), { headers: { 'Content-Type': 'image/png' } });
  });
  return { api, asked };
}

const v = (n: number) => `/api/agents/7/screenshot?v=${n}`;

/** Renders the probe at v=1 until its image shows; returns what the API was asked and that image's src. */
async function shownFirst() {
  const { api, asked } = screenshotApi();
  await renderScreen(api, <Probe initial={{ url: v(1), hold: false }} />);
  await waitFor(() => shot()?.startsWith('blob:') ?? false, 'the first image');
  return { asked, first: shot() };
}

const hook = suite('useScreenshot');
hook.after.each(cleanup);

hook('fetches each new address and shows it as a blob: URL', async () => {
  const { asked, first } = await shownFirst();
  await update({ url: v(2), hold: false });
  await waitFor(() => shot() !== first, 'the second image');
  assert.ok(shot()!.startsWith('blob:'));
  assert.equal(asked, ['1', '2']);
});

hook('held, the image stays and new addresses are not fetched; let go, only the latest is', async () => {
  const { asked, first } = await shownFirst();

  await update({ url: v(1), hold: true });
  await update({ url: v(2), hold: true });
  await update({ url: v(3), hold: true });
  await settle();
  assert.equal(asked, ['1'], 'nothing fetched while held');
  assert.is(shot(), first, 'the held image is still shown');

  await update({ url: v(3), hold: false });
  await waitFor(() => shot() !== first, 'the latest image');
  assert.equal(asked, ['1', '3']);
});

hook('let go with the address unchanged, nothing is fetched again', async () => {
  const { asked, first } = await shownFirst();
  await update({ url: v(1), hold: true });
  await update({ url: v(1), hold: false });
  await settle();
  assert.equal(asked, ['1']);
  assert.is(shot(), first);
});

hook('no address and not held: no image', async () => {
  const { asked } = await shownFirst();
  await update({ url: null, hold: false });
  await settle();
  assert.is(shot(), null);
  assert.equal(asked, ['1']);
});

hook.run();
