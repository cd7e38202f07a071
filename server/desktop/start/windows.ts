// Which window is under a point of an Xvnc desktop (a take-over's action log names it, issue 19) and which one has
// the focus (a vault fill checks it), asked of the desktop's X server by the server itself over one X11 connection
// (x11-client.ts): no program per lookup and none per desktop. A lookup walks down from the root through the viewable
// windows that contain the point, topmost first (16 requests, 1-2 ms on a desktop with a terminal); no events are
// watched, so nothing is cached between lookups. xwininfo run per click cost 60-100 ms through the sandbox and
// stalled the event loop 12-16 ms per fork. The connection goes to the socket the server kept out of the agent's
// reach (Sandbox.keepSocket); the names that come back are the agent's programs', so bounded, cleaned and timed.
import { ANY_TYPE, ATOM, getGeometry, getProperty, getWindowAttributes, internAtom, parseGeometry, parseInternAtom, parseMapState, parseProperty,
  parseQueryTree, queryTree, VIEWABLE, X11Connection, X11Error, type X11Options } from './x11-client.ts';
import type { FocusedWindow } from '../types.ts';

export type WindowLookupOptions = Pick<X11Options, 'path' | 'cookie' | 'timeoutMs'>;

const MAX_TITLE = 80;
/** Windows looked at in one lookup (the children of every window on the way down). */
const MAX_WINDOWS = 10_000;
/** Windows nested deeper than this are not looked into (a toolkit nests a few). */
const MAX_DEPTH = 64;
/** Bytes read of a name or a WM_CLASS: past any title kept (500 characters of at most 4 bytes). */
const NAME_BYTES = 2048;

type Atoms = { netWmName: number; utf8: number; activeWindow: number };

/** The desktop's windows, asked of its X server (connected by open or the first lookup, again once dropped). */
export class WindowLookup {
  private connection: Promise<{ x: X11Connection; atoms: Atoms }> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private options: WindowLookupOptions) {}

  /** Connects now, so that the first click does not wait for it. */
  open(): void {
    void this.serial(() => this.connect());
  }

  /** The title of the topmost viewable named window under (x, y), or null (the background, no answer). */
  at(x: number, y: number): Promise<string | null> {
    return this.serial(async () => {
      const { x: conn, atoms } = await this.connect();
      const name = await this.under(conn, atoms, conn.setup.root, x, y, { left: MAX_WINDOWS }, 0);
      return name ? cut(name, MAX_TITLE) : null;
    });
  }

  /**
   * The window the window manager made active (_NET_ACTIVE_WINDOW: evilwm keeps it), with its WM_CLASS and title.
   * Every one of these names is the desktop's to set, so a fill into it is "not verified" (server/vault).
   */
  focused(): Promise<FocusedWindow | null> {
    return this.serial(async () => {
      const { x: conn, atoms } = await this.connect();
      const active = await conn.ask(getProperty(conn.setup.root, atoms.activeWindow, ATOM.WINDOW, 4));
      const value = active && parseProperty(active);
      const id = value?.format === 32 && value.value.length >= 4 ? value.value.readUInt32LE(0) : 0;
      if (!id) return null;
      const [wmClass, title] = await Promise.all([conn.ask(getProperty(id, ATOM.WM_CLASS, ANY_TYPE, NAME_BYTES)), this.nameOf(conn, atoms, id)]);
      const [instance = '', className = ''] = (wmClass ? text(parseProperty(wmClass), atoms) : '').split('\0');
      return { id: `0x${id.toString(16)}`, instance: cut(instance, 200, ''), className: cut(className, 200, ''), title: cut(title, 500, '') };
    });
  }

  /** Closes the connection; lookups after it answer null. */
  close(): void {
    this.closed = true;
    void this.connection?.then(({ x }) => x.close(), () => {});
    this.connection = null;
  }

  /** One lookup at a time, each answered null when anything goes wrong (a timeout, a malformed reply, no X server). */
  private serial<T>(lookup: () => Promise<T | null>): Promise<T | null> {
    const next = this.queue.then(lookup).catch(() => null);
    this.queue = next;
    return next;
  }

  private async connect(): Promise<{ x: X11Connection; atoms: Atoms }> {
    if (this.closed) throw new X11Error('window lookup closed');
    const current = await this.connection?.catch(() => null);
    if (current && !current.x.closed) return current;
    this.connection = (async () => {
      const x = await X11Connection.open(this.options);
      try {
        const [netWmName, utf8, activeWindow] = await Promise.all(['_NET_WM_NAME', 'UTF8_STRING', '_NET_ACTIVE_WINDOW'].map(async (name) => {
          const reply = await x.ask(internAtom(name));
          if (!reply) throw new X11Error(`InternAtom ${name} failed`);
          return parseInternAtom(reply);
        }));
        return { x, atoms: { netWmName, utf8, activeWindow } };
      } catch (err) {
        x.close();
        throw err;
      }
    })();
    return this.connection;
  }

  /**
   * The name of the topmost named window under (x, y) (relative to `parent`) among the parent's descendants: its
   * viewable children that contain the point, top first, each one's own descendants before itself.
   */
  private async under(conn: X11Connection, atoms: Atoms, parent: number, x: number, y: number, budget: { left: number }, depth: number): Promise<string> {
    const tree = await conn.ask(queryTree(parent));
    const children = tree ? parseQueryTree(tree).reverse() : [];
    budget.left -= children.length;
    if (budget.left < 0) throw new X11Error(`more than ${MAX_WINDOWS} windows`);
    const [states, boxes] = await Promise.all([
      Promise.all(children.map(async (w) => mapState(await conn.ask(getWindowAttributes(w))))),
      Promise.all(children.map(async (w) => {
        const reply = await conn.ask(getGeometry(w));
        return reply && parseGeometry(reply);
      })),
    ]);
    for (const [i, child] of children.entries()) {
      const box = boxes[i];
      if (states[i] !== VIEWABLE || !box) continue;
      // Geometry is the border's outer corner in the parent; the point must be inside the border, as xwininfo counted.
      const [cx, cy] = [x - box.x - box.border, y - box.y - box.border];
      if (cx < 0 || cy < 0 || cx >= box.width || cy >= box.height) continue;
      const below = depth < MAX_DEPTH ? await this.under(conn, atoms, child, cx, cy, budget, depth + 1) : '';
      if (below) return below;
      const name = await this.nameOf(conn, atoms, child);
      if (name) return name;
    }
    return '';
  }

  /** _NET_WM_NAME (UTF-8) when the window has one, else WM_NAME; '' for none. */
  private async nameOf(conn: X11Connection, atoms: Atoms, window: number): Promise<string> {
    const [net, wm] = await Promise.all([
      conn.ask(getProperty(window, atoms.netWmName, atoms.utf8, NAME_BYTES)),
      conn.ask(getProperty(window, ATOM.WM_NAME, ANY_TYPE, NAME_BYTES)),
    ]);
    return (net && text(parseProperty(net), atoms)) || (wm && text(parseProperty(wm), atoms)) || '';
  }
}

const mapState = (reply: Buffer | null) => (reply ? parseMapState(reply) : 0);

/** A text property: UTF8_STRING as UTF-8, anything else of 8-bit format (STRING, COMPOUND_TEXT) as Latin-1. */
function text(p: { type: number; format: number; value: Buffer }, atoms: Atoms): string {
  if (p.format !== 8) return '';
  return p.value.toString(p.type === atoms.utf8 ? 'utf8' : 'latin1');
}

/** At most `max` characters (the last one `ellipsis` when cut), control characters as spaces: it goes into logs. */
function cut(name: string, max: number, ellipsis = '…'): string {
  const clean = name.replace(/[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, ' ');
  const chars = Array.from(clean.length > 4 * max ? clean.slice(0, 4 * max) : clean);
  return chars.length > max ? chars.slice(0, max - ellipsis.length).join('') + ellipsis : clean;
}
