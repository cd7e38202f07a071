// Touch on the live view (issue 47): its touch events through the gesture recognizer (gestures.ts).
// Its mouse actions go to the desktop, in the desktop's pixels, while the person has control; its pinch zooms
// the view (view-zoom.ts) whether or not they do, since a read-only view is worth a closer look too. The page
// neither scrolls nor zooms under the fingers (touch-action: none, styles/live-desktop.css). Mouse and pen
// stay with Guacamole.Mouse (which ignores the mouse events a touch makes), corrected for the zoom with `view()`.
import { GestureRecognizer, GESTURE_DEFAULTS, type GestureAction, type GestureOptions, type Point } from './gestures.ts';
import { baseBox, cssTransform, IDENTITY, pinchView, type Box, type View } from './view-zoom.ts';

/** A Guacamole.Mouse.State's fields: what Client.sendMouseState reads. */
export type MouseState = { x: number; y: number; left: boolean; middle: boolean; right: boolean; up: boolean; down: boolean };

export type TouchInputOptions = {
  /** What the fingers touch and what clips the zoomed display (the live view). */
  surface: HTMLElement;
  /** The display's box, which the zoom transforms. */
  display: HTMLElement;
  /** The remote screen's size in its own pixels. */
  screenSize: () => { width: number; height: number };
  /** Whether input goes to the desktop now (control mode). */
  active: () => boolean;
  /** A pointer state in the desktop's pixels (send it without the display's scale). */
  send: (state: MouseState) => void;
  gestures?: Partial<GestureOptions>;
  /** @default performance.now */
  now?: () => number;
};

export type TouchInput = {
  /** The zoom now: Guacamole.Mouse's positions (in the untransformed box) go through toContent with it. */
  view: () => View;
  /** Back to the fitted view (the box changed size: the old zoom no longer fits it). */
  reset: () => void;
  stop: () => void;
};

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);
const box = (element: HTMLElement): Box => {
  const { left, top, width, height } = element.getBoundingClientRect();
  return { left, top, width, height };
};

export function bindTouchInput(options: TouchInputOptions): TouchInput {
  const { surface, display } = options;
  const recognizer = new GestureRecognizer(options.gestures);
  const longPressMs = options.gestures?.longPressMs ?? GESTURE_DEFAULTS.longPressMs;
  const now = options.now ?? (() => performance.now());
  let view = IDENTITY;
  let pinch: { start: View; mid: Point; distance: number; base: Box; frame: Box } | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const setView = (next: View) => {
    view = next;
    display.style.transform = cssTransform(next);
  };

  /** A client point → the desktop's pixel under it, through the display's scale and the zoom. */
  const toDesktop = (at: Point): Point | null => {
    const shown = box(display);
    const { width, height } = options.screenSize();
    if (!shown.width || !shown.height || !width || !height) return null;
    return {
      x: clamp(Math.floor(((at.x - shown.left) / shown.width) * width), 0, width - 1),
      y: clamp(Math.floor(((at.y - shown.top) / shown.height) * height), 0, height - 1),
    };
  };

  const apply = (actions: GestureAction[]) => {
    for (const action of actions) {
      if (action.kind === 'mouse') {
        const at = options.active() ? toDesktop(action.at) : null;
        if (at) options.send({ ...at, left: action.left, middle: false, right: action.right, up: action.up, down: action.down });
      } else if (action.kind === 'zoom-start') {
        pinch = { start: view, mid: action.mid, distance: action.distance, base: baseBox(view, box(display)), frame: box(surface) };
      } else if (action.kind === 'zoom') {
        if (pinch) setView(pinchView(pinch.start, pinch, action, pinch.base, pinch.frame));
      } else {
        pinch = null;
      }
    }
  };

  // The long press is timed here; the recognizer says whether a finger is still waiting for it.
  const timeLongPress = () => {
    if (!recognizer.waitingForLongPress) {
      clearTimeout(timer);
      timer = undefined;
    } else if (timer === undefined) {
      timer = setTimeout(() => {
        timer = undefined;
        apply(recognizer.longPress(now()));
      }, longPressMs);
    }
  };
  const at = (touch: Touch): Point => ({ x: touch.clientX, y: touch.clientY });
  const each = (event: TouchEvent, handle: (touch: Touch) => GestureAction[]) => [...event.changedTouches].flatMap(handle);
  // Touch events rather than pointer events: a touchmove carries every finger that moved, so a pinch is told
  // from a two-finger drag by where both fingers are, not by one finger's step before the other's.
  const listen = (handle: (event: TouchEvent) => GestureAction[]) => (event: TouchEvent) => {
    // No mouse events after it (Guacamole.Mouse would click twice), and the focus stays where it is: on the
    // hidden field of the phone's keyboard, which would close if the focus moved.
    if (event.cancelable) event.preventDefault();
    apply(handle(event));
    timeLongPress();
  };
  const onStart = listen((event) => each(event, (touch) => recognizer.down(touch.identifier, at(touch), now())));
  const onMove = listen((event) => recognizer.move([...event.changedTouches].map((touch) => ({ id: touch.identifier, at: at(touch) }))));
  const onEnd = listen((event) => each(event, (touch) => recognizer.up(touch.identifier, now())));
  const onCancel = listen((event) => each(event, (touch) => recognizer.cancel(touch.identifier)));
  // A long press is ours (a right click on the desktop), not the browser's menu.
  const onContextMenu = (event: Event) => event.preventDefault();

  const cancelable = { passive: false }; // a page's touch listeners are passive by default
  surface.addEventListener('touchstart', onStart, cancelable);
  surface.addEventListener('touchmove', onMove, cancelable);
  surface.addEventListener('touchend', onEnd, cancelable);
  surface.addEventListener('touchcancel', onCancel, cancelable);
  surface.addEventListener('contextmenu', onContextMenu);
  return {
    view: () => view,
    reset: () => {
      pinch = null;
      setView(IDENTITY);
    },
    stop: () => {
      clearTimeout(timer);
      surface.removeEventListener('touchstart', onStart);
      surface.removeEventListener('touchmove', onMove);
      surface.removeEventListener('touchend', onEnd);
      surface.removeEventListener('touchcancel', onCancel);
      surface.removeEventListener('contextmenu', onContextMenu);
    },
  };
}
