// The live view's pinch zoom (issue 47): a translate and a scale on the display's box (transform-origin 0 0),
// never the page's zoom, so the title bar, the key bar and the phone's keyboard stay where they are. Pure
// math on boxes in client pixels; the caller measures them and writes the transform.
import type { Point } from './gestures.ts';

/** `translate(x, y) scale(scale)` of the display's box, from where the layout put it. */
export type View = { scale: number; x: number; y: number };
export type Box = { left: number; top: number; width: number; height: number };

export const IDENTITY: View = { scale: 1, x: 0, y: 0 };
/** Past this the desktop's pixels are blocks: 5× a 1280-pixel desktop fitted into a phone is about 1:1.5. */
export const MAX_ZOOM = 5;

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/**
 * The view after a pinch that went from `from` to `to`, begun at `start`: the desktop point first under the
 * fingers' midpoint stays under it (so a two-finger move pans), at the scale the fingers' spread says.
 * `base` is the display's box without the transform, `frame` the box that clips it.
 */
export function pinchView(
  start: View, from: { mid: Point; distance: number }, to: { mid: Point; distance: number }, base: Box, frame: Box,
): View {
  const scale = clamp((start.scale * to.distance) / Math.max(from.distance, 1), 1, MAX_ZOOM);
  const anchor = toContent(start, { x: from.mid.x - base.left, y: from.mid.y - base.top });
  return clampView({ scale, x: to.mid.x - base.left - scale * anchor.x, y: to.mid.y - base.top - scale * anchor.y }, base, frame);
}

/**
 * Keeps the zoomed display over the frame: no gap at an edge while it is larger than the frame, centred
 * where it is smaller (as the layout centres it unzoomed).
 */
export function clampView(view: View, base: Box, frame: Box): View {
  if (view.scale <= 1) return IDENTITY; // where the layout put it (its centring rounds to whole pixels)
  const axis = (offset: number, baseStart: number, size: number, frameStart: number, frameSize: number) => {
    const scaled = size * view.scale;
    if (scaled <= frameSize) return frameStart + (frameSize - scaled) / 2 - baseStart;
    return clamp(offset, frameStart + frameSize - scaled - baseStart, frameStart - baseStart);
  };
  return {
    scale: view.scale,
    x: axis(view.x, base.left, base.width, frame.left, frame.width),
    y: axis(view.y, base.top, base.height, frame.top, frame.height),
  };
}

/** A point of the display's untransformed box (pixels from its top left) → the point of its content there. */
export function toContent(view: View, point: Point): Point {
  return { x: (point.x - view.x) / view.scale, y: (point.y - view.y) / view.scale };
}

/** The display's untransformed box, from its measured (transformed) one. */
export function baseBox(view: View, measured: Box): Box {
  return {
    left: measured.left - view.x,
    top: measured.top - view.y,
    width: measured.width / view.scale,
    height: measured.height / view.scale,
  };
}

export function isZoomed(view: View): boolean {
  return view.scale !== 1 || view.x !== 0 || view.y !== 0;
}

export function cssTransform(view: View): string {
  return isZoomed(view) ? `translate(${view.x}px, ${view.y}px) scale(${view.scale})` : '';
}
