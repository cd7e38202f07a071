// The offline model's credential rules (issue 45). "sign in to <url> with <credential name>": open the URL in the
// desktop's browser (the right half of the screen), then type the credential with fill_credential, never seeing
// it: the username, Tab, the password, and when the credential has a TOTP secret, Tab and the code; then Enter. The
// page is expected to focus its username field itself (autofocus), as sign-in pages do. Also "go to <url>" (the
// browser alone) and "type the <username|password|code> of <credential name>" (one field, where the focus is).

type PlannedCall = { name: string; input: Record<string, unknown>; say: string };
type Place = { width: number; credentials?: Record<string, string[]> };

const GO_RULE = /^(?:go|navigate|browse)\s+to\s+(\S+)$/i;
const FIELD_RULE = /^(?:type|enter|fill\s+in)\s+the\s+(username|password|totp|code|one-time code)\s+(?:of|from)\s+(?:the\s+)?(?:credentials?\s+)?([\s\S]+)$/i;
const RULE = /^(?:sign|log)\s+(?:in|on)(?:\s+(?:to|at|on))?\s+(\S+)\s+(?:with|using|as)\s+(?:the\s+)?(?:credentials?\s+)?([\s\S]+)$/i;
/** How the fill_credential tool lists a credential in its description (server/runner/tools/fill-credential.ts). */
const LISTED = /^- "(.+)": fields ([a-z_, ]+);/gm;

/** The credentials' fields as the fill_credential tool's description lists them. */
export function listedCredentials(description: string): Record<string, string[]> {
  return Object.fromEntries([...description.matchAll(LISTED)].map((m) => [m[1], m[2].split(/,\s*/)]));
}

export function signInCalls(clause: string, place: Place, unquote: (s: string) => string): PlannedCall[] | null {
  let m: RegExpExecArray | null;
  if ((m = GO_RULE.exec(clause))) return browse(unquote(m[1]), place);
  if ((m = FIELD_RULE.exec(clause))) {
    const field = m[1].toLowerCase() === 'username' || m[1].toLowerCase() === 'password' ? m[1].toLowerCase() : 'totp';
    return [fill(unquote(m[2].trim()), field)];
  }
  if (!(m = RULE.exec(clause))) return null;
  const name = unquote(m[2].trim());
  const opened = browse(unquote(m[1]), place);
  if (!opened || !name) return null;
  const fields = place.credentials?.[name] ?? [];
  return [
    ...opened,
    ...(fields.includes('totp')
      ? [fill(name, 'username'), key('Tab'), fill(name, 'password'), key('Tab'), fill(name, 'totp'), key('Return')]
      : [fill(name, 'sign_in')]),
  ];
}

/** The URL typed into the browser's address bar, and a moment for the page. */
function browse(text: string, place: Place): PlannedCall[] | null {
  const url = text.replace(/[,.;]+$/, '');
  if (!/^https?:\/\/\S+$/i.test(url)) return null;
  const { width: w } = place;
  // Chromium's tab strip, right of its one tab: a click there focuses the window, not a page element.
  const strip: [number, number] = [Math.round(w / 2 + (w / 2) * 0.6), 12];
  return [
    { name: 'computer', input: { action: 'left_click', coordinate: strip }, say: 'Focusing the browser' },
    key('ctrl+l'),
    { name: 'computer', input: { action: 'type', text: url }, say: `Typing "${url}"` },
    key('Return'),
    { name: 'computer', input: { action: 'wait', duration: 2 }, say: 'Waiting for the page' },
  ];
}

const fill = (name: string, field: string): PlannedCall => ({ name: 'fill_credential', input: { name, field }, say: `Typing the ${field} of “${name}”` });
const key = (text: string): PlannedCall => ({ name: 'computer', input: { action: 'key', text }, say: `Pressing ${text}` });
