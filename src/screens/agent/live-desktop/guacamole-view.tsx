// The Guacamole display of one LiveSession: scaled to fit its box (never above 1:1, so text stays
// sharp) and rescaled whenever the box or the remote screen changes size. Input only in control mode:
// Guacamole.Mouse on the display, Guacamole.Keyboard on this focusable element (not the document), key
// events kept from bubbling to the page, and paste handled with the spec's paste flags: the browser's
// paste shortcut is let through, the pasted text goes to the desktop's clipboard first, and the shortcut
// itself follows 150 ms later (or after 300 ms without a paste event).
import Guacamole from 'guacamole-common-js';
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { LiveSession } from './live-session.ts';
import { bindTouchInput } from './touch/touch-input.ts';
import { isZoomed, toContent } from './touch/view-zoom.ts';
import { pressTypedKeysAtKeydown } from './typed-keys.ts';

export const PASTE_SETTLE_MS = 150;
export const PASTE_WAIT_MS = 300;

const CTRL = new Set([0xffe3, 0xffe4]);
const META = new Set([0xffe7, 0xffe8, 0xffeb, 0xffec]);
const SHIFT = new Set([0xffe1, 0xffe2]);
const KEY_V = new Set([0x76, 0x56]);
const INSERT = 0xff63;

type GuacamoleViewProps = {
  session: LiveSession;
  client: Guacamole.Client | null;
  /** Input goes to the desktop only while true. */
  control: boolean;
  /** Overlays drawn over the desktop picture, in its coordinates (the agent cursor). */
  children?: ReactNode;
};

export function GuacamoleView({ session, client, control, children }: GuacamoleViewProps) {
  const frameRef = useRef<HTMLDivElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const controlRef = useRef(control);
  const clientRef = useRef(client);
  const [box, setBox] = useState<{ width: number; height: number } | null>(null);
  controlRef.current = control;
  clientRef.current = client;

  // Attach the client's display and keep it scaled to the frame.
  useLayoutEffect(() => {
    const frame = frameRef.current;
    const holder = boxRef.current;
    if (!client || !frame || !holder) return;
    const display = client.getDisplay();
    const element = display.getElement();
    holder.prepend(element);
    // Touch: taps, long presses, drags and the wheel to the desktop, and the pinch zoom of the view (issue 47).
    const touch = bindTouchInput({
      surface: frame,
      display: holder,
      screenSize: () => ({ width: display.getWidth(), height: display.getHeight() }),
      active: () => controlRef.current,
      send: (state) => client.sendMouseState(state as Guacamole.Mouse.State),
    });
    let fitted = '';
    const fit = () => {
      const w = display.getWidth();
      const h = display.getHeight();
      if (!w || !h) return setBox(null);
      // A hidden view (the chat's turn on a phone) keeps its fit for when it shows again.
      if (!frame.clientWidth || !frame.clientHeight) return;
      const scale = Math.min(frame.clientWidth / w, frame.clientHeight / h, 1);
      display.scale(scale);
      const next = { width: Math.round(w * scale), height: Math.round(h * scale) };
      // A zoom made for another size would leave the picture off its box.
      if (`${next.width}x${next.height}` !== fitted) touch.reset();
      fitted = `${next.width}x${next.height}`;
      setBox(next);
    };
    display.onresize = fit;
    const observer = new ResizeObserver(fit);
    observer.observe(frame);
    fit();

    const mouse = new Guacamole.Mouse(element);
    mouse.onEach(['mousedown', 'mouseup', 'mousemove'], (event) => {
      if (!controlRef.current) return;
      // Guacamole.Mouse measures the box as laid out; a pinch's transform moved what is under the pointer.
      const view = touch.view();
      client.sendMouseState(isZoomed(view) ? { ...event.state, ...toContent(view, event.state) } : event.state, true);
    });
    return () => {
      touch.stop();
      observer.disconnect();
      display.onresize = null;
      element.remove();
    };
  }, [client]);

  // Keyboard and paste, bound to the frame element so they only act while it has focus.
  useEffect(() => {
    const frame = frameRef.current!;
    const keyboard = new Guacamole.Keyboard(frame);
    const stopTyped = pressTypedKeysAtKeydown(frame, keyboard, () => controlRef.current && !!clientRef.current);
    const down = new Set<number>();
    let paste: { keysym: number; timer: ReturnType<typeof setTimeout> } | null = null;

    // Key events that happen while a paste is pending wait for it, so that the shortcut still reaches
    // the desktop with its modifiers held (a quick Shift+Insert releases Shift before the paste arrives).
    let held: [0 | 1, number][] | null = null;
    const sendNow = (pressed: 0 | 1, keysym: number) => clientRef.current?.sendKeyEvent(pressed, keysym);
    const send = (pressed: 0 | 1, keysym: number) => (held ? held.push([pressed, keysym]) : sendNow(pressed, keysym));
    const finishPaste = (text: string | null) => {
      if (!paste) return;
      clearTimeout(paste.timer);
      const { keysym } = paste;
      const queue = held ?? [];
      paste = null;
      if (text) session.sendClipboard(text);
      // The desktop needs a moment to own the new clipboard before the application asks for it.
      setTimeout(() => {
        if (held === queue) held = null;
        sendNow(1, keysym);
        sendNow(0, keysym);
        for (const [pressed, k] of queue) sendNow(pressed, k);
      }, text ? PASTE_SETTLE_MS : 0);
    };

    keyboard.onkeydown = (keysym) => {
      if (!controlRef.current || !clientRef.current) return true;
      down.add(keysym);
      const mod = [...down].some((k) => CTRL.has(k) || META.has(k));
      const shift = [...down].some((k) => SHIFT.has(k));
      if ((mod && KEY_V.has(keysym)) || (shift && keysym === INSERT)) {
        // Let the browser run its paste so that a paste event brings the local clipboard.
        if (paste) finishPaste(null);
        paste = { keysym, timer: setTimeout(() => finishPaste(null), PASTE_WAIT_MS) };
        held = [];
        return true;
      }
      send(1, keysym);
      return false;
    };
    keyboard.onkeyup = (keysym) => {
      down.delete(keysym);
      if (!controlRef.current || paste?.keysym === keysym) return;
      send(0, keysym);
    };

    const onPaste = (event: ClipboardEvent) => {
      if (!controlRef.current) return;
      event.preventDefault();
      const text = event.clipboardData?.getData('text/plain') ?? '';
      if (paste) finishPaste(text);
      else if (text) session.sendClipboard(text);
    };
    // While in control, keys belong to the desktop: page shortcuts (Escape closing things…) never see them.
    const contain = (event: Event) => {
      if (controlRef.current) event.stopPropagation();
    };
    // Guacamole.Mouse cancels mousedown, which would also cancel the focus move: do it here.
    const onPointerDown = () => {
      if (controlRef.current && document.activeElement !== frame) frame.focus({ preventScroll: true });
    };
    const onBlur = () => {
      keyboard.reset(); // releases held keys (sending their key-ups while in control)
      down.clear();
    };
    frame.addEventListener('paste', onPaste);
    for (const type of ['keydown', 'keyup', 'keypress']) frame.addEventListener(type, contain);
    frame.addEventListener('blur', onBlur);
    frame.addEventListener('mousedown', onPointerDown, true);
    return () => {
      frame.removeEventListener('mousedown', onPointerDown, true);
      if (paste) clearTimeout(paste.timer);
      stopTyped();
      keyboard.onkeydown = null;
      keyboard.onkeyup = null;
      frame.removeEventListener('paste', onPaste);
      for (const type of ['keydown', 'keyup', 'keypress']) frame.removeEventListener(type, contain);
      frame.removeEventListener('blur', onBlur);
    };
  }, [session]);

  // Entering control puts the keyboard focus on the desktop; leaving it releases any held keys.
  useEffect(() => {
    const frame = frameRef.current!;
    if (control) frame.focus({ preventScroll: true });
    else if (document.activeElement === frame) frame.blur();
  }, [control]);

  return (
    <div
      ref={frameRef}
      className="live-view"
      tabIndex={control ? 0 : -1}
      data-control={control || undefined}
      // A desktop taking keys is an application; one only watched is an image of it.
      role={control ? 'application' : 'img'}
      aria-label={control ? 'Remote desktop (you have control)' : 'Remote desktop (view only)'}
    >
      <div ref={boxRef} className="live-display" style={box ? { width: box.width, height: box.height } : { visibility: 'hidden' }}>
        {box && children}
      </div>
    </div>
  );
}
