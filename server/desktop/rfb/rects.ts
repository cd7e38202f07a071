// Rectangle arithmetic for dirty regions. A scrolling terminal makes Xvnc send ~200 rects per update;
// merging them into a few rectangles before PNG-encoding beats one `img` per rect (fewer PNG headers,
// deflate windows that span rows, far fewer blob acks).
import type { Rect } from '../types.ts';

export const area = (r: Rect) => r.w * r.h;

export function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

export function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

export function contains(outer: Rect, inner: Rect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

export type CoalesceOptions = {
  /** At most this many rectangles come out. @default 8 */
  maxRects?: number;
  /** Pixels a merge may add that neither input covered, below which two rects always merge. @default 4096 */
  slack?: number;
};

/**
 * Merges rectangles into at most `maxRects` that cover all of them. Pairs merge when their bounding box
 * wastes little (at most `slack` px, or at most a quarter of the box); then the cheapest pairs merge until
 * the count fits. The result may cover pixels no input did, never fewer.
 */
export function coalesce(rects: Rect[], options: CoalesceOptions = {}): Rect[] {
  const maxRects = options.maxRects ?? 8;
  const slack = options.slack ?? 4096;
  let list = rects.filter((r) => r.w > 0 && r.h > 0).map(({ x, y, w, h }) => ({ x, y, w, h }));
  // Cheap merges first, repeated until nothing changes (n is small: a few hundred at most).
  let merged = true;
  while (merged && list.length > 1) {
    merged = false;
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const u = union(list[i], list[j]);
        const waste = area(u) - area(list[i]) - area(list[j]);
        if (waste <= slack || waste * 4 <= area(u) || contains(list[i], list[j]) || contains(list[j], list[i])) {
          list[i] = u;
          list.splice(j, 1);
          j = i; // re-check the grown rect against the rest
          merged = true;
        }
      }
    }
  }
  while (list.length > maxRects) {
    let best = [0, 1];
    let bestWaste = Infinity;
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const waste = area(union(list[i], list[j])) - area(list[i]) - area(list[j]);
        if (waste < bestWaste) {
          bestWaste = waste;
          best = [i, j];
        }
      }
    }
    list[best[0]] = union(list[best[0]], list[best[1]]);
    list.splice(best[1], 1);
  }
  return list;
}
