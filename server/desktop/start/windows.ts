// Which window is under a point of an Xvnc desktop (a take-over's action log names it, issue 19): the window
// tree as `xwininfo -root -tree` prints it (x11-utils), run on the desktop as its apps run. Children are
// listed bottom to top, so of the named windows that contain the point the last one listed is on top; an
// unmapped one (a hidden browser window) is skipped by asking `xwininfo -id` for its map state.
//
// A lookup comes with every click of a person in control, so xwininfo runs from one shell kept on the desktop
// (WindowLookup), not as a program started per lookup: each start passes through the sandbox (namespaces, the
// agent's uid, bwrap: 60-100 ms of a click's lookup), and each fork of the server copies its page tables while
// its event loop waits (12-16 ms at 530-575 MB resident, a server like the desktop bench's), which held up the
// very picture of the click. The shell's answers are the desktop's, so untrusted: length-framed, bounded, timed.
import type { ChildProcess } from 'node:child_process';
import type { Sandbox } from '../contain/sandbox.ts';
import type { FocusedWindow } from '../types.ts';

export type WindowBox = { id: string; name: string; x: number; y: number; width: number; height: number };

const LINE = /^\s*(0x[0-9a-f]+) "((?:[^"\\]|\\.)*)": \(.*?\)\s+(\d+)x(\d+)[+-]-?\d+[+-]-?\d+\s+([+-]-?\d+)([+-]-?\d+)\s*$/;
const coordinate = (s: string) => Number(s.replace('+-', '-').replace('+', ''));

/** The named windows of the tree that contain (x, y), the topmost first. */
export function windowsUnder(tree: string, x: number, y: number): WindowBox[] {
  const found: WindowBox[] = [];
  for (const line of tree.split('\n')) {
    const m = LINE.exec(line);
    if (!m || !m[2]) continue;
    const box = { id: m[1], name: m[2].replace(/\\(.)/g, '$1'), width: Number(m[3]), height: Number(m[4]), x: coordinate(m[5]), y: coordinate(m[6]) };
    if (x >= box.x && y >= box.y && x < box.x + box.width && y < box.y + box.height) found.push(box);
  }
  return found.reverse();
}

const MAX_TITLE = 80;
/** A tree of ten thousand windows: an answer past it is not xwininfo's. */
const MAX_ANSWER = 1024 * 1024;
const WINDOW_ID = /^0x[0-9a-f]{1,8}$/;

// One request per line ("tree" or a window id); each answer is its length in bytes, a newline, then itself.
const SHELL = `while read -r request; do
  case $request in
    tree) out=$(xwininfo -root -tree 2>/dev/null) ;;
    0x*) out=$(xwininfo -id "$request" 2>/dev/null) ;;
    focus) id=$(xprop -root _NET_ACTIVE_WINDOW 2>/dev/null | grep -o '0x[0-9a-f]*' | head -n 1)
      out=$([ -n "$id" ] && echo "id $id" && xprop -id "$id" WM_CLASS _NET_WM_NAME WM_NAME 2>/dev/null) ;;
    *) out= ;;
  esac
  printf '%s\\n%s' "$(printf %s "$out" | wc -c)" "$out"
done`;

/** The desktop's windows, asked of one xwininfo shell on it (started by open or the first lookup, again if it dies). */
export class WindowLookup {
  private shell: ChildProcess | null = null;
  private received = Buffer.alloc(0);
  private answer: ((text: string | null) => void) | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private sandbox: Pick<Sandbox, 'spawn' | 'which'>,
    private env: NodeJS.ProcessEnv,
    /** How long an answer may take before the shell is replaced. */
    private answerMs = 3000,
  ) {}

  /** Starts the shell now, so that the first click does not wait for it (nothing without xwininfo). */
  open(): void {
    if (!this.shell && this.sandbox.which('xwininfo')) this.start();
  }

  /** The title of the topmost viewable window under (x, y), or null (the background, no xwininfo, no answer). */
  async at(x: number, y: number): Promise<string | null> {
    if (!this.sandbox.which('xwininfo')) return null;
    const tree = await this.ask('tree');
    for (const w of windowsUnder(tree ?? '', x, y).slice(0, 3)) {
      if (/Map State:\s+IsViewable/.test((await this.ask(w.id)) ?? '')) {
        return w.name.length > MAX_TITLE ? w.name.slice(0, MAX_TITLE - 1) + '…' : w.name;
      }
    }
    return null;
  }

  /**
   * The window the window manager made active (_NET_ACTIVE_WINDOW: evilwm keeps it), with its WM_CLASS and title.
   * Every one of these names is the desktop's to set, so a fill into it is "not verified" (server/vault).
   */
  async focused(): Promise<FocusedWindow | null> {
    if (!this.sandbox.which('xprop')) return null;
    return parseFocus((await this.ask('focus')) ?? '');
  }

  /** Ends the shell (the desktop stops). */
  close(): void {
    this.end();
  }

  /** One request at a time: answers come back in order on the one pipe. */
  private ask(request: string): Promise<string | null> {
    if (request !== 'tree' && request !== 'focus' && !WINDOW_ID.test(request)) return Promise.resolve(null);
    const next = this.queue.then(() => this.exchange(request)).catch(() => null);
    this.queue = next;
    return next;
  }

  private exchange(request: string): Promise<string | null> {
    const shell = this.shell ?? this.start();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end(), this.answerMs); // a shell that hangs is replaced
      this.answer = (text) => {
        clearTimeout(timer);
        this.answer = null;
        resolve(text);
      };
      shell.stdin!.write(`${request}\n`);
    });
  }

  private start(): ChildProcess {
    const shell = this.sandbox.spawn('/bin/sh', ['-c', SHELL], { env: this.env, stdio: ['pipe', 'pipe', 'ignore'] });
    this.shell = shell;
    this.received = Buffer.alloc(0);
    // What a replaced shell still had on its way is not an answer to the next one's requests.
    shell.stdout!.on('data', (chunk: Buffer) => shell === this.shell && this.receive(chunk));
    shell.stdin!.on('error', () => this.end(shell));
    shell.once('error', () => this.end(shell));
    shell.once('exit', () => this.end(shell));
    return shell;
  }

  /** Bytes from the shell: the answer once all of it is here; anything malformed ends the shell. */
  private receive(chunk: Buffer): void {
    this.received = Buffer.concat([this.received, chunk]);
    const newline = this.received.indexOf(10);
    if (newline < 0) {
      if (this.received.length > 16) this.end();
      return;
    }
    const head = this.received.subarray(0, newline).toString('latin1').trim();
    const length = /^\d{1,8}$/.test(head) ? Number(head) : NaN;
    if (!(length <= MAX_ANSWER) || !this.answer) return this.end(); // not a length, too long, or unasked
    const end = newline + 1 + length;
    if (this.received.length < end) return;
    if (this.received.length > end) return this.end(); // more than the answer: out of step
    const text = this.received.subarray(newline + 1, end).toString('utf8');
    this.received = Buffer.alloc(0);
    this.answer(text);
  }

  /** Kills the shell (when it is still `shell`) and answers a pending request with nothing. */
  private end(shell: ChildProcess | null = this.shell): void {
    if (!shell || shell !== this.shell) return;
    this.shell = null;
    this.received = Buffer.alloc(0);
    shell.stdin!.destroy();
    shell.stdout!.destroy();
    shell.kill('SIGKILL');
    this.answer?.(null);
  }
}

const QUOTED = /"((?:[^"\\]|\\.)*)"/g;
const unquote = (s: string) => s.replace(/\\(.)/g, '$1');

/** xprop's answer about the active window: `id 0x…`, then WM_CLASS(STRING) = "instance", "Class" and the names. */
export function parseFocus(text: string): FocusedWindow | null {
  const id = /^id (0x[0-9a-f]{1,8})$/m.exec(text)?.[1];
  if (!id) return null;
  const line = (name: string) => text.split('\n').find((l) => l.startsWith(`${name}(`)) ?? '';
  const [instance = '', className = ''] = [...line('WM_CLASS').matchAll(QUOTED)].map((m) => unquote(m[1]));
  const title = [...line('_NET_WM_NAME').matchAll(QUOTED)].map((m) => unquote(m[1]))[0]
    ?? [...line('WM_NAME').matchAll(QUOTED)].map((m) => unquote(m[1]))[0] ?? '';
  return { id, instance: instance.slice(0, 200), className: className.slice(0, 200), title: title.slice(0, 500) };
}
