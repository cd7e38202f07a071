import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  baseBox, clampView, cssTransform, IDENTITY, MAX_ZOOM, pinchView, toContent, type Box, type View,
} from '../../src/screens/agent/live-desktop/touch/view-zoom.ts';

// A phone's live view: the frame is 360×300 at (10, 100); the 16:10 desktop fits it as 360×225, centred.
const frame: Box = { left: 10, top: 100, width: 360, height: 300 };
const base: Box = { left: 10, top: 137.5, width: 360, height: 225 };
/** Where a point of the content (pixels of the unzoomed box) shows on the screen under a view. */
const onScreen = (view: View, x: number, y: number) => ({ x: base.left + view.x + view.scale * x, y: base.top + view.y + view.scale * y });
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);

const zoom = suite('view zoom');

zoom('spreading the fingers twice as far doubles the scale around the point between them', () => {
  const mid = { x: 100, y: 200 };
  const view = pinchView(IDENTITY, { mid, distance: 80 }, { mid, distance: 160 }, base, frame);
  close(view.scale, 2, 'scale');
  const anchor = { x: mid.x - base.left, y: mid.y - base.top };
  const shown = onScreen(view, anchor.x, anchor.y);
  close(shown.x, mid.x, 'x stays under the fingers');
  close(shown.y, mid.y, 'y stays under the fingers');
});

zoom('moving both fingers pans: the content point under them follows them, within the edges', () => {
  const start: View = { scale: 2, x: -100, y: -100 };
  const from = { mid: { x: 200, y: 250 }, distance: 100 };
  const view = pinchView(start, from, { mid: { x: 230, y: 240 }, distance: 100 }, base, frame);
  assert.equal(view, { scale: 2, x: -70, y: -110 });
  const far = pinchView(start, from, { mid: { x: 900, y: -500 }, distance: 100 }, base, frame);
  assert.equal(far.x, 0, 'the left edge stays at the frame');
  const shown = onScreen(far, 0, base.height);
  close(shown.y, frame.top + frame.height, 'the bottom edge stays at the frame');
});

zoom('the scale stays between 1 (the fitted view, untransformed) and the maximum', () => {
  const mid = { x: 100, y: 200 };
  assert.equal(pinchView({ scale: 2, x: -50, y: -80 }, { mid, distance: 200 }, { mid, distance: 20 }, base, frame), IDENTITY);
  assert.is(pinchView(IDENTITY, { mid, distance: 10 }, { mid, distance: 500 }, base, frame).scale, MAX_ZOOM);
});

zoom('a zoomed picture still smaller than the frame in one direction is centred in it that way', () => {
  const view = clampView({ scale: 1.2, x: -40, y: 500 }, base, frame);
  assert.is(view.x, -40, 'wider than the frame: within the edges');
  close(base.top + view.y + (1.2 * base.height) / 2, frame.top + frame.height / 2, 'centred vertically');
});

zoom('a point of the laid-out box maps back to the content under it; the measured box gives the laid-out one', () => {
  const view: View = { scale: 2.5, x: -120, y: -60 };
  assert.equal(toContent(view, { x: -120 + 2.5 * 40, y: -60 + 2.5 * 10 }), { x: 40, y: 10 });
  const measured = { left: base.left + view.x, top: base.top + view.y, width: base.width * 2.5, height: base.height * 2.5 };
  assert.equal(baseBox(view, measured), base);
});

zoom('the CSS transform is empty for the fitted view', () => {
  assert.is(cssTransform(IDENTITY), '');
  assert.is(cssTransform({ scale: 2, x: -10, y: -5.5 }), 'translate(-10px, -5.5px) scale(2)');
});

zoom.run();
