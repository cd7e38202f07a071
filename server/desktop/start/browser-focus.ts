// Which field of the desktop's Chromium has the keyboard, asked over its DevTools pipe before the vault types a
// password. Read in an isolated world: the page's own scripts can redefine `activeElement` or `type` in the
// main world and lie, but not in a world of ours, which sees the real DOM. It only reads; the caller decides.
import { DevtoolsError, type DevtoolsPipe } from './devtools-pipe.ts';

/** What has the keyboard in the desktop's Chromium, as the browser itself says. */
export type FocusedField = {
  /** The page's origin as Chromium reports it for the top frame (e.g. 'https://a.example.com', 'http://127.0.0.1:8123'). */
  origin: string;
  /** 'password': an <input type=password>; 'text': another text-entry input (text, email, tel, number, search, url,
   *  or no type) or a textarea; 'frame': the focus is inside an <iframe>/<frame> (not verifiable), or the page's
   *  own origin disagrees with the browser's; 'other': anything else focused (body, button, contenteditable…). */
  element: 'password' | 'text' | 'frame' | 'other';
  /** Whether that same element kept the focus all along (it never left, not even to come back), on the same origin, in
   *  a page that still has the focus. False when anything cannot be read. */
  stillFocused(): Promise<boolean>;
  /** Lets go of the CDP session (call once the fill ends). */
  release(): Promise<void>;
};

type Element = FocusedField['element'];
type TargetInfo = { targetId: string; type: string; url: string };

const WORLD = 'agent-workspace-vault';
const MAX_PAGES = 20;
/** One page's whole probe (four commands, sub-millisecond each when its renderer is idle): a page whose main
 *  thread is stuck (a busy loop) is passed over instead of holding the fill for the pipe's 3 s timeout. */
const PAGE_MS = 250;
/** The whole call: past it, the pages not yet asked are not asked (no field, so no fill). */
const TOTAL_MS = 1000;
let calls = 0;

/** The focused field of the page that has the focus (document.hasFocus() true), or null when no page of the browser
 *  has the focus (another window has it, or there is no page). Rejects (DevtoolsError) only when the browser's
 *  list of targets cannot be had (a closed pipe); a page that fails or is stuck is passed over. */
export async function focusedField(pipe: DevtoolsPipe): Promise<FocusedField | null> {
  const deadline = Date.now() + TOTAL_MS;
  const { targetInfos } = await pipe.send<{ targetInfos: unknown }>('Target.getTargets');
  if (!Array.isArray(targetInfos)) throw new DevtoolsError('Target.getTargets: no target list');
  const pages = targetInfos.filter(isTarget).filter((t) => t.type === 'page').slice(0, MAX_PAGES);
  // Each call keeps its element under a name of its own: a world is shared by every session that names it.
  const slot = `__awField${++calls}`;
  for (const page of pages) {
    if (Date.now() >= deadline) break;
    const attached = pipe.send<{ sessionId?: unknown }>('Target.attachToTarget', { targetId: page.targetId, flatten: true });
    const probing = attached.then(({ sessionId }) => {
      if (typeof sessionId !== 'string') throw new DevtoolsError('Target.attachToTarget: no session id');
      return probe(pipe, page, sessionId, slot);
    });
    const field = await within(probing, PAGE_MS).catch(() => null);
    if (field) return field;
    // Not the focused page (or it failed, or is stuck): let go of it whenever the attach answers.
    attached.then(({ sessionId }) => detach(pipe, sessionId), () => {});
  }
  return null;
}

/** The page's field if the page has the focus, else null. */
async function probe(pipe: DevtoolsPipe, page: TargetInfo, sessionId: string, slot: string): Promise<FocusedField | null> {
  const { frameTree } = await pipe.send('Page.getFrameTree', {}, sessionId);
  const frameId = frameTree?.frame?.id;
  if (typeof frameId !== 'string') throw new DevtoolsError('Page.getFrameTree: no main frame');
  const { executionContextId: contextId } = await pipe.send('Page.createIsolatedWorld', { frameId, worldName: WORLD }, sessionId);
  if (!Number.isSafeInteger(contextId)) throw new DevtoolsError('Page.createIsolatedWorld: no context id');
  const evaluate = (expression: string) => evaluateIn(pipe, sessionId, contextId, expression);
  // Once found, any blur of the element or the window marks it: a focus that leaves and comes back (another
  // window grabbing the keyboard while keys are typed) is not "still focused".
  const found = await evaluate(`(() => {
    ${ACTIVE}
    const el = active();
    const focused = document.hasFocus();
    if (focused) {
      const slot = { el, left: false };
      const left = () => (slot.left = true);
      el?.addEventListener('blur', left, true);
      window.addEventListener('blur', left, true);
      globalThis[${JSON.stringify(slot)}] = slot;
    }
    return { focused, origin: location.origin, kind: ${KIND} };
  })()`);
  if (found?.focused !== true) return null;
  const origin = originOf(page.url);
  const element: Element = found.origin === origin && ELEMENTS.includes(found.kind) ? found.kind : 'frame';
  let released = false;
  return {
    origin,
    element,
    async stillFocused() {
      if (released) return false;
      try {
        const { targetInfo } = await pipe.send('Target.getTargetInfo', { targetId: page.targetId });
        if (typeof targetInfo?.url !== 'string' || originOf(targetInfo.url) !== origin) return false;
        const held = `globalThis[${JSON.stringify(slot)}]`;
        const same = `document.hasFocus() && !!${held} && !${held}.left && active() === ${held}.el && location.origin === ${JSON.stringify(origin)}`;
        return (await evaluate(`(() => { ${ACTIVE} return ${same}; })()`)) === true;
      } catch {
        return false;
      }
    },
    async release() {
      if (released) return;
      released = true;
      await evaluate(`delete globalThis[${JSON.stringify(slot)}]`).catch(() => {});
      await detach(pipe, sessionId);
    },
  };
}

const ELEMENTS: unknown[] = ['password', 'text', 'frame', 'other'];

/** The focused element, followed into open shadow roots (a web component's own <input>). */
const ACTIVE = `const active = () => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
};`;

/** The kind of `el`; <object>/<embed> count as frames, since they can hold a document of their own. */
const KIND = `(() => {
  if (el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement) return 'frame';
  if (el instanceof HTMLObjectElement || el instanceof HTMLEmbedElement) return 'frame';
  if (el instanceof HTMLTextAreaElement) return 'text';
  if (!(el instanceof HTMLInputElement)) return 'other';
  if (el.type === 'password') return 'password';
  return ['text', 'email', 'tel', 'number', 'search', 'url'].includes(el.type) ? 'text' : 'other';
})()`;

/** Runs an expression in our isolated world and returns its value; a thrown exception rejects. */
async function evaluateIn(pipe: DevtoolsPipe, sessionId: string, contextId: number, expression: string): Promise<any> {
  const answer = await pipe.send('Runtime.evaluate', { expression, contextId, returnByValue: true, silent: true }, sessionId);
  if (answer.exceptionDetails !== undefined) throw new DevtoolsError('Runtime.evaluate: the expression threw');
  return answer.result?.value;
}

async function detach(pipe: DevtoolsPipe, sessionId: unknown): Promise<void> {
  if (typeof sessionId === 'string') await pipe.send('Target.detachFromTarget', { sessionId }).catch(() => {});
}

/** The origin of a URL as the URL standard has it ('null' for about:, data:, chrome:…, or an unreadable URL). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

function isTarget(t: any): t is TargetInfo {
  return typeof t === 'object' && t !== null && typeof t.targetId === 'string' && typeof t.type === 'string' && typeof t.url === 'string';
}

/** The promise's value, or a rejection once `ms` pass. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DevtoolsError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
