// A more-options dropdown following the WAI-ARIA menu button pattern
// (https://www.w3.org/WAI/ARIA/apg/patterns/menu-button/): arrow keys, Home/End and first-letter
// jumps move focus, Escape and an outside press close it. Leaves out submenus and checkable items.
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { MoreIcon } from './icons.tsx';

export type MenuItem = {
  label: string;
  onSelect?: () => void;
  /** Stays focusable (aria-disabled), so keyboard users still hear it and the title still shows on hover. */
  disabled?: boolean;
  title?: string;
};

type MenuProps = {
  /** The button's accessible name and tooltip. */
  label: string;
  items: MenuItem[];
  /** @default the three-dots icon */
  icon?: ReactNode;
};

export function Menu({ label, items, icon = <MoreIcon /> }: MenuProps) {
  const menuId = useId();
  const buttonId = useId();
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const itemRefs = useRef<(HTMLButtonElement | null)[]>([]);

  useEffect(() => {
    if (open) itemRefs.current[active]?.focus();
  }, [open, active]);

  useEffect(() => {
    if (!open) return;
    // pointerdown, not click: a press that starts outside and ends inside still counts as outside.
    const onPointerDown = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  const openAt = (index: number) => {
    setActive(index);
    setOpen(true);
  };

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };

  const select = (item: MenuItem) => {
    if (item.disabled) return;
    // Focus goes back to the button first, so a modal opened by onSelect restores it there when it closes.
    close();
    item.onSelect?.();
  };

  const onButtonKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      openAt(event.key === 'ArrowDown' ? 0 : items.length - 1);
    }
  };

  const onMenuKeyDown = (event: KeyboardEvent) => {
    const last = items.length - 1;
    const move = (index: number) => {
      event.preventDefault();
      setActive(index);
    };
    switch (event.key) {
      case 'ArrowDown': return move(active === last ? 0 : active + 1);
      case 'ArrowUp': return move(active === 0 ? last : active - 1);
      case 'Home': return move(0);
      case 'End': return move(last);
      case 'Escape':
        // Keeps an enclosing modal's own Escape handler from closing it as well.
        event.preventDefault();
        event.stopPropagation();
        return close();
      case 'Tab':
        return setOpen(false);
      default:
        if (event.key.length === 1 && /\S/.test(event.key)) {
          const next = findByLetter(items, active, event.key);
          if (next >= 0) move(next);
        }
    }
  };

  return (
    <div className="menu" ref={root}>
      <button
        ref={button}
        id={buttonId}
        type="button"
        className="icon-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={label}
        title={label}
        onClick={() => (open ? setOpen(false) : openAt(0))}
        onKeyDown={onButtonKeyDown}
      >
        {icon}
      </button>
      {open && (
        <div id={menuId} className="menu-list" role="menu" aria-labelledby={buttonId} onKeyDown={onMenuKeyDown}>
          {items.map((item, index) => (
            <button
              key={item.label}
              ref={(el) => {
                itemRefs.current[index] = el;
              }}
              type="button"
              role="menuitem"
              className="menu-item"
              tabIndex={-1}
              aria-disabled={item.disabled || undefined}
              title={item.title}
              onClick={() => select(item)}
              onMouseEnter={() => setActive(index)}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** The next item after `from` whose label starts with `letter`, wrapping around; -1 when none. */
export function findByLetter(items: MenuItem[], from: number, letter: string): number {
  const wanted = letter.toLowerCase();
  for (let step = 1; step <= items.length; step++) {
    const index = (from + step) % items.length;
    if (items[index].label.toLowerCase().startsWith(wanted)) return index;
  }
  return -1;
}
