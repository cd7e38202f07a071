// The key bar under the live desktop on a touch screen, in control mode (issue 47): a Keyboard button that
// opens the phone's keyboard (by focusing a hidden field, text-sink.ts), and the keys a phone's keyboard
// lacks: Esc, Tab, Ctrl and Alt (each held for the next key, then let go), and the arrows. Its buttons never
// take the focus, so the phone's keyboard stays open while they are tapped. Shown by CSS only where there is
// no hover (styles/live-desktop.css): a desktop browser's layout is unchanged.
import { useEffect, useRef, useState, type MouseEvent as ReactMouseEvent, type PointerEvent as ReactPointerEvent, type ReactNode } from 'react';
import { KeyboardIcon } from '../../../../ui/icons.tsx';
import { bindTextSink, KEYSYM, type TextSink } from './text-sink.ts';

export type SendKey = (pressed: boolean, keysym: number) => void;

const SHIFT = 0xffe1;
const META = 0xffe7;

type Modifiers = { ctrl: boolean; alt: boolean };
const NONE: Modifiers = { ctrl: false, alt: false };

export function KeyBar({ sendKey }: { sendKey: SendKey }) {
  const fieldRef = useRef<HTMLTextAreaElement>(null);
  const sinkRef = useRef<TextSink | null>(null);
  const [typing, setTyping] = useState(false);
  const [held, setHeld] = useState<Modifiers>(NONE);
  const heldRef = useRef(held);
  heldRef.current = held;
  const sendRef = useRef(sendKey);
  sendRef.current = sendKey;

  /** One key, pressed and released, inside the modifiers held on the bar or on a hardware keyboard. */
  const typeKeyRef = useRef((keysym: number, event?: KeyboardEvent) => {
    const { ctrl, alt } = heldRef.current;
    const modifiers = [
      ...(ctrl || event?.ctrlKey ? [KEYSYM.ctrl] : []),
      ...(alt || event?.altKey ? [KEYSYM.alt] : []),
      ...(event?.shiftKey ? [SHIFT] : []),
      ...(event?.metaKey ? [META] : []),
    ];
    const send = sendRef.current;
    for (const m of modifiers) send(true, m);
    send(true, keysym);
    send(false, keysym);
    for (const m of modifiers.reverse()) send(false, m);
    if (ctrl || alt) setHeld(NONE);
  });

  useEffect(() => {
    const sink = bindTextSink(fieldRef.current!, (keysym, event) => typeKeyRef.current(keysym, event));
    sinkRef.current = sink;
    return () => sink.stop();
  }, []);

  const toggleKeyboard = () => {
    const field = fieldRef.current!;
    if (document.activeElement === field) field.blur();
    else field.focus({ preventScroll: true });
  };
  const key = (keysym: number) => () => {
    typeKeyRef.current(keysym);
    sinkRef.current?.refill();
  };
  const toggle = (name: keyof Modifiers) => () => setHeld((h) => ({ ...h, [name]: !h[name] }));

  return (
    <div className="key-bar" role="group" aria-label="Keys for the desktop">
      <BarButton label="Keyboard" pressed={typing} onClick={toggleKeyboard}><KeyboardIcon /></BarButton>
      <BarButton onClick={key(KEYSYM.escape)}>Esc</BarButton>
      <BarButton onClick={key(KEYSYM.tab)}>Tab</BarButton>
      <BarButton pressed={held.ctrl} onClick={toggle('ctrl')}>Ctrl</BarButton>
      <BarButton pressed={held.alt} onClick={toggle('alt')}>Alt</BarButton>
      <BarButton label="Left arrow" onClick={key(KEYSYM.left)}>←</BarButton>
      <BarButton label="Up arrow" onClick={key(KEYSYM.up)}>↑</BarButton>
      <BarButton label="Down arrow" onClick={key(KEYSYM.down)}>↓</BarButton>
      <BarButton label="Right arrow" onClick={key(KEYSYM.right)}>→</BarButton>
      <textarea
        ref={fieldRef}
        className="key-bar-field"
        aria-label="Type on the desktop"
        tabIndex={-1}
        rows={1}
        autoCapitalize="off"
        autoCorrect="off"
        autoComplete="off"
        spellCheck={false}
        onFocus={() => setTyping(true)}
        onBlur={() => setTyping(false)}
      />
    </div>
  );
}

/** A key's name is its label when it shows a symbol (an arrow), else the text it shows. */
type BarButtonProps = { label?: string; pressed?: boolean; onClick: () => void; children: ReactNode };

function BarButton({ label, pressed, onClick, children }: BarButtonProps) {
  // Taking the focus would close the phone's keyboard: the press is kept from moving it (the click still comes).
  const keepFocus = (event: ReactPointerEvent | ReactMouseEvent) => event.preventDefault();
  return (
    <button
      type="button"
      className="key-bar-key"
      aria-label={label}
      aria-pressed={pressed}
      onPointerDown={keepFocus}
      onMouseDown={keepFocus}
      onClick={onClick}
    >
      {children}
    </button>
  );
}
