// The offline model's grammar: plain instructions → a list of tool calls. Deterministic, no
// vision, no network. An instruction is split into clauses where a new command verb follows
// ',', ';', '.', 'and', 'then' (quoted text is never split); "ask a sub-agent to …" takes the rest
// of the instruction as its task. Each clause must match one rule below, else it is reported back.
import { signInCalls } from './offline-sign-in.ts';

export type Place = {
  width: number; height: number; terminal: [number, number];
  /** The credentials the agent may fill, by name, with their fields (offline-sign-in.ts). */
  credentials?: Record<string, string[]>;
};

export type PlannedCall = { name: string; input: Record<string, unknown>; say: string };
export type Plan = { calls: PlannedCall[]; unknown: string[] };

const VERBS = [
  'open', 'launch', 'start', 'type', 'write', 'press', 'hit', 'click', 'double[- ]?click', 'right[- ]?click', 'middle[- ]?click',
  'triple[- ]?click', 'move', 'scroll', 'wait', 'take', 'capture', 'draft', 'compose', 'send', 'ask', 'remember', 'note',
  'add', 'create', 'make', 'read', 'screenshot', 'please', 'sign', 'log', 'go', 'navigate', 'browse',
].join('|');
// A boundary is punctuation or a joining word ("and", "then" …) right before a command verb.
const BREAK = '(\\s*[,;]\\s*|(?<=\\S)[.!]\\s+|\\s*\\n\\s*|\\s+)';
const JOINER = '((?:and\\s+)?then\\s+|and\\s+|after that,?\\s+|afterwards,?\\s+|finally,?\\s+)?';
const BOUNDARY = new RegExp(`${BREAK}${JOINER}(?=(?:${VERBS})\\b)`, 'gi');

/** Splits an instruction into clauses; quoted strings survive whole. */
export function splitClauses(instruction: string): string[] {
  const quoted: string[] = [];
  let rest = instruction
    .replace(/"([^"]*)"|“([^”]*)”|(?<!\w)'([^']*)'(?!\w)/g, (m) => `\u0000${quoted.push(m) - 1}\u0000`)
    .trim();
  const clauses: string[] = [];
  while (rest) {
    if (/^(?:please\s+)?ask\s+(?:an?\s+|the\s+)?sub[- ]?agent\b/i.test(rest)) {
      clauses.push(rest); // the sub-agent's task is everything that follows
      break;
    }
    BOUNDARY.lastIndex = 0;
    let cut: RegExpExecArray | null = null;
    for (let m = BOUNDARY.exec(rest); m; m = BOUNDARY.exec(rest)) {
      if (m[0] === '') BOUNDARY.lastIndex++;
      // A bare space before a verb is no boundary ("type open sesame").
      if (m.index > 0 && (/[,;.!\n]/.test(m[1]) || m[2])) {
        cut = m;
        break;
      }
    }
    if (!cut) {
      clauses.push(rest);
      break;
    }
    clauses.push(rest.slice(0, cut.index));
    rest = rest.slice(cut.index + cut[0].length);
  }
  return clauses
    .map((c) => c.replace(/\u0000(\d+)\u0000/g, (_, i) => quoted[Number(i)]).replace(/[\s.,;!]+$/, '').trim())
    .filter(Boolean);
}

const unquote = (s: string) => {
  const t = s.trim();
  const m = /^(?:"([^"]*)"|“([^”]*)”|'([^']*)')$/.exec(t);
  return m ? (m[1] ?? m[2] ?? m[3]) : t;
};
const isQuoted = (s: string) => /^(?:"[^"]*"|“[^”]*”|'[^']*')$/.test(s.trim());

const KEY_NAMES: Record<string, string> = {
  enter: 'Return', return: 'Return', escape: 'Escape', esc: 'Escape', tab: 'Tab', backspace: 'BackSpace', space: 'space',
  spacebar: 'space', delete: 'Delete', del: 'Delete', home: 'Home', end: 'End', up: 'Up', down: 'Down', left: 'Left', right: 'Right',
  pageup: 'Page_Up', pagedown: 'Page_Down', insert: 'Insert', ctrl: 'ctrl', control: 'ctrl', alt: 'alt', shift: 'shift',
  super: 'super', win: 'super', windows: 'super', meta: 'super', cmd: 'super',
};

/** "ctrl c", "Ctrl-C", "the enter key", "page down" → xdotool names ("ctrl+c", "Return", "Page_Down"). */
export function parseKeys(text: string): string | null {
  const cleaned = text.toLowerCase().replace(/^the\s+/, '').replace(/\s+(?:key|keys|button)$/, '').replace(/page\s+(up|down)/g, 'page$1').trim();
  if (!cleaned) return null;
  const parts = cleaned.split(/\s*\+\s*|\s*-\s*|\s+/).filter(Boolean);
  const names = parts.map((p) => KEY_NAMES[p] ?? (/^f([1-9]|1[0-2])$/.test(p) ? p.toUpperCase() : /^[a-z0-9]$/.test(p) ? p : null));
  if (names.some((n) => n === null)) return null;
  return names.join('+');
}

/** A described place on the screen, or explicit coordinates "640,400" / "(640, 400)" / "x=640 y=400". */
export function resolvePlace(description: string, place: Place): [number, number] | null {
  const d = description.toLowerCase().replace(/^(?:on|at|in|to)\s+/, '').replace(/^the\s+/, '').trim();
  const xy = /^\(?\s*(?:x\s*=?\s*)?(\d{1,5})\s*[, ]\s*(?:y\s*=?\s*)?(\d{1,5})\s*\)?$/.exec(d);
  if (xy) return clamp([Number(xy[1]), Number(xy[2])], place);
  const { width: w, height: h } = place;
  const at = (fx: number, fy: number): [number, number] => [Math.round(fx * (w - 1)), Math.round(fy * (h - 1))];
  if (/^(?:terminal|xterm|shell|console)(?:\s+window)?$/.test(d)) return at(...place.terminal);
  const v = /\b(top|upper)\b/.test(d) ? 'top' : /\b(bottom|lower)\b/.test(d) ? 'bottom' : null;
  const hz = /\bleft\b/.test(d) ? 'left' : /\bright\b/.test(d) ? 'right' : null;
  if (/\b(center|centre|middle)\b/.test(d) && !v && !hz) return at(0.5, 0.5);
  if (!/\b(corner|edge|side|screen|part|area|half)\b/.test(d) && !/^(top|bottom|upper|lower|left|right)(\s+(left|right))?$/.test(d)) return null;
  if (!v && !hz) return /\bscreen\b/.test(d) ? at(0.5, 0.5) : null;
  const corner = /\bcorner\b/.test(d) || (v && hz);
  const edge = corner ? 0.02 : 0.05;
  const fx = hz === 'left' ? edge : hz === 'right' ? 1 - edge : 0.5;
  const fy = v === 'top' ? edge : v === 'bottom' ? 1 - edge : 0.5;
  return at(fx, fy);
}

const clamp = ([x, y]: [number, number], p: Place): [number, number] => [Math.min(x, p.width - 1), Math.min(y, p.height - 1)];

const completion = (text: string): number | null => {
  const pct = /(\d{1,3}(?:\.\d+)?)\s*%/.exec(text);
  if (pct) return Math.min(1, Math.max(0, Number(pct[1]) / 100));
  if (/\b(?:not (?:yet )?(?:done|complete|finished)|incomplete|unfinished)\b/i.test(text)) return 0;
  if (/\b(?:done|completed?|finished)\b/i.test(text)) return 1;
  return null;
};

const short = (text: string, n = 60) => (text.length > n ? text.slice(0, n - 1) + '…' : text);

/** One clause → its calls (usually one), or null when it matches no rule. */
export function parseClause(clause: string, place: Place): PlannedCall[] | null {
  const call = parseOne(clause, place);
  return call === null ? null : Array.isArray(call) ? call : [call];
}

// Rules too long to sit inline in parseOne's `if`s, named instead.
// "draft an email to <address> [about <subject>] [saying <text>]"
const EMAIL_RULE = new RegExp(
  /^(?:draft|write|compose|send|prepare)\s+(?:an?\s+)?(?:e-?mail|mail|message)\s+to\s+(\S+?)/.source +
    /(?:\s+(?:about|with (?:the )?subject|titled|subject)\s+(.+?))?/.source +
    /(?:\s*(?:,\s*)?(?:saying|that says|which says|with (?:the )?text|telling (?:them|him|her)|:)\s*([\s\S]+))?$/.source,
  'i',
);
const REPORT_RULE =
  /^(?:write|create|make|add|file)\s+(?:a\s+|an\s+)?(?:new\s+)?report(?:\s+entry)?\b\s*(?:titled|called|named|about|on|for)?\s*:?\s*([\s\S]*)$/i;
const NOTE_RULE =
  /^(?:(?:write|add|take|make|save|leave)\s+(?:a\s+|this\s+)?note|remember|note(?:\s+down)?)\b\s*(?:that|saying|:|-|to self)?\s*([\s\S]+)$/i;
const TERMINAL_RULE =
  /^(?:open|launch|start|bring up|show)\s+(?:up\s+)?(?:a\s+|an\s+|the\s+)?(?:new\s+)?(?:terminal|xterm|shell|console|command[- ]line)(?:\s+window)?$/i;
const SCREENSHOT_RULE =
  /^(?:(?:take|capture|grab|make)\s+(?:a\s+|another\s+|one\s+more\s+)?(?:new\s+)?(?:screenshot|screen\s?shot|picture of the screen)|screenshot)$/i;
function parseOne(clause: string, place: Place): PlannedCall | PlannedCall[] | null {
  const c = clause.replace(/^please\s+/i, '').replace(/^(?:now|next|first|also|finally),?\s+/i, '').trim();
  let m: RegExpExecArray | null;

  if ((m = /^ask\s+(?:me|the\s+user|the\s+person|for\s+help)\s+(?:for\s+help\s+)?(?:with|about|on|:)?\s*([\s\S]+)$/i.exec(c))) {
    const question = unquote(m[1]);
    return question ? { name: 'ask_for_help', input: { question }, say: `Asking you for help: ${short(question)}` } : null;
  }
  if ((m = /^ask\s+(?:an?\s+|the\s+)?sub[- ]?agent\s+(?:to\s+)?([\s\S]+)$/i.exec(c))) {
    return { name: 'sub_agent', input: { task: unquote(m[1]) }, say: `Asking a sub-agent to ${short(unquote(m[1]))}` };
  }
  if ((m = EMAIL_RULE.exec(c))) {
    const to = m[1].replace(/[,.;:]+$/, '');
    const text = unquote(m[3] ?? '');
    if (!text) return null;
    const subject = m[2] ? unquote(m[2]) : short(text.split('\n')[0], 60);
    return { name: 'email', input: { to, subject, text }, say: `Drafting an email to ${to}` };
  }
  if ((m = REPORT_RULE.exec(c))) {
    const body = m[1].trim();
    if (!body) return null;
    const split = /^("[^"]*"|“[^”]*”|[^:]+?)\s*(?::|\s+saying|\s+with|\s+-\s)\s*([\s\S]+)$/.exec(body);
    const title = short(unquote(split ? split[1] : body), 120);
    const description = split ? unquote(split[2]) : '';
    return {
      name: 'report',
      input: { title, description, entries: [{ title, description, completion_rate: completion(description || body) }] },
      say: `Writing a report: ${short(title)}`,
    };
  }
  if ((m = NOTE_RULE.exec(c))) {
    return { name: 'notes', input: { action: 'append', text: unquote(m[1]) }, say: 'Writing a note' };
  }
  if (/^read\s+(?:my\s+|the\s+|your\s+)?notes?(?:\.md)?$/i.test(c)) return { name: 'notes', input: { action: 'read' }, say: 'Reading the notes' };
  if (TERMINAL_RULE.test(c)) {
    // The desktop's terminal is already open: focus it. The pointer first leaves the terminal, so that a
    // focus-follows-mouse window manager (evilwm) focuses it again on entry even if another window
    // (a browser starting up) took the focus meanwhile; a click-to-focus one is served by the click.
    const [tx, ty] = place.terminal;
    const away = `${Math.round((1 - tx) * (place.width - 1))},${Math.round(ty * (place.height - 1))}`;
    return [
      { name: 'computer', input: { action: 'mouse_move', coordinate: resolvePlace(away, place) }, say: 'Moving the pointer off the terminal' },
      {
        name: 'computer', input: { action: 'left_click', coordinate: resolvePlace('terminal', place) },
        say: 'Opening the terminal (a click on the terminal window)',
      },
    ];
  }
  const signIn = signInCalls(c, place, unquote);
  if (signIn) return signIn;
  if (SCREENSHOT_RULE.test(c)) {
    return { name: 'computer', input: { action: 'screenshot' }, say: 'Taking a screenshot' };
  }
  if ((m = /^(?:type|write|enter)\s+(?:in\s+)?([\s\S]+)$/i.exec(c))) {
    let text = m[1].trim();
    if (!isQuoted(text)) {
      text = text
        .replace(/^(?:the\s+)?(?:text|words?)\s+/i, '')
        .replace(/\s+(?:in|into)\s+(?:the\s+|a\s+)?(?:terminal|xterm|shell|window|console)$/i, '')
        .trim();
    }
    text = unquote(text);
    if (!text) return null;
    return { name: 'computer', input: { action: 'type', text }, say: `Typing "${short(text)}"` };
  }
  if ((m = /^(?:press|hit|push)\s+([\s\S]+)$/i.exec(c))) {
    const keys = parseKeys(m[1]);
    return keys ? { name: 'computer', input: { action: 'key', text: keys }, say: `Pressing ${keys}` } : null;
  }
  if ((m = /^(double|right|middle|triple|left)?[- ]?click(?:\s+(?:on\s+|at\s+|in\s+)?([\s\S]+))?$/i.exec(c))) {
    const action = `${(m[1] ?? 'left').toLowerCase()}_click`;
    if (!m[2]) return { name: 'computer', input: { action }, say: `Clicking (${action.replace('_', ' ')})` };
    const target = resolvePlace(m[2], place);
    if (!target) return null;
    return { name: 'computer', input: { action, coordinate: target }, say: `Clicking at ${target[0]},${target[1]}` };
  }
  if ((m = /^move\s+(?:the\s+)?(?:mouse|cursor|pointer)\s+(?:to\s+)?([\s\S]+)$/i.exec(c))) {
    const target = resolvePlace(m[1], place);
    return target ? { name: 'computer', input: { action: 'mouse_move', coordinate: target }, say: `Moving the mouse to ${target[0]},${target[1]}` } : null;
  }
  if ((m = /^scroll\s+(up|down|left|right)(?:\s+(?:by\s+)?(\d{1,3})(?:\s+(?:times|clicks|steps|notches))?)?$/i.exec(c))) {
    const amount = m[2] ? Number(m[2]) : 3;
    const direction = m[1].toLowerCase();
    return {
      name: 'computer',
      input: { action: 'scroll', coordinate: resolvePlace('center', place), scroll_direction: direction, scroll_amount: amount },
      say: `Scrolling ${direction}`,
    };
  }
  if ((m = /^wait(?:\s+(?:for\s+)?(?:a\s+)?(\d+(?:\.\d+)?)?\s*(ms|milliseconds?|s|secs?|seconds?|second)?)?$/i.exec(c))) {
    const n = m[1] ? Number(m[1]) : 1;
    const seconds = m[2] && /^m/i.test(m[2]) ? n / 1000 : n;
    return { name: 'computer', input: { action: 'wait', duration: Math.min(seconds, 60) }, say: `Waiting ${seconds} s` };
  }
  return null;
}

export function planInstruction(instruction: string, place: Place): Plan {
  const calls: PlannedCall[] = [];
  const unknown: string[] = [];
  for (const clause of splitClauses(instruction)) {
    const parsed = parseClause(clause, place);
    if (parsed) calls.push(...parsed);
    else unknown.push(clause);
  }
  return { calls, unknown };
}
