// Which window is under a point of an Xvnc desktop (a take-over's action log names it, issue 19): the window
// tree as `xwininfo -root -tree` prints it (x11-utils), run on the desktop as its apps run. Children are
// listed bottom to top, so of the named windows that contain the point the last one listed is on top; an
// unmapped one (a hidden browser window) is skipped by asking `xwininfo -id` for its map state.
import type { Sandbox } from '../contain/sandbox.ts';

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

/** The title of the topmost viewable window under (x, y) on the desktop, or null (the background, or no xwininfo). */
export async function windowAt(sandbox: Sandbox, env: NodeJS.ProcessEnv, x: number, y: number): Promise<string | null> {
  if (!sandbox.which('xwininfo')) return null;
  const tree = await output(sandbox, env, ['-root', '-tree']);
  for (const w of windowsUnder(tree, x, y).slice(0, 3)) {
    if (/Map State:\s+IsViewable/.test(await output(sandbox, env, ['-id', w.id]))) {
      return w.name.length > MAX_TITLE ? w.name.slice(0, MAX_TITLE - 1) + '…' : w.name;
    }
  }
  return null;
}

function output(sandbox: Sandbox, env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = sandbox.spawn('xwininfo', args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.stdout!.on('data', (d) => (out += d));
    child.once('error', () => resolve(''));
    child.once('close', () => (clearTimeout(timer), resolve(out)));
  });
}
