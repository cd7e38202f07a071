// Where keys typed now would go, and whether the credential may go there (issue 45). In the desktop's browser the
// browser itself answers, over the DevTools pipe only the server holds: the focused page's origin must match an
// origin target and the focused element must be the right kind of field. Elsewhere the focused window's class and
// title must match a window target; the desktop's programs name their own windows, so such a fill is "not verified".
import type { Desktop, FocusedField, FocusedWindow } from '../desktop/index.ts';
import { matchOrigin, matchWindow, parseTarget, type Target } from './targets.ts';

/** The field kind a fill needs: a password field, a text field, or either (a TOTP code). */
export type Want = 'password' | 'text' | 'code';

export type Place =
  | { kind: 'page'; target: string; origin: string; field: FocusedField }
  | { kind: 'window'; target: string; window: FocusedWindow };

export type Refusal = { refused: string; target: string };

type Probe = Pick<Desktop, 'focusedField' | 'focusedWindow'>;

export async function placeFor(desktop: Probe, targetTexts: string[], want: Want): Promise<Place | Refusal> {
  const targets = targetTexts.map(parseTarget).filter((t): t is Target => !('error' in t));
  const field = desktop.focusedField ? await desktop.focusedField().catch(() => undefined) : undefined;
  if (field === undefined && desktop.focusedField) return { refused: 'the browser on the desktop did not answer, so the field cannot be verified', target: '' };
  if (field) {
    const target = matchOrigin(targets, field.origin);
    const refused = !target ? `the focused page (${field.origin}) is not a target of this credential`
      : field.element === 'frame' ? 'the focused field is inside a frame, which cannot be verified'
        : want === 'password' && field.element !== 'password' ? 'the focused field is not a password field'
          : want === 'text' && field.element !== 'text' ? 'the focused element is not a text field'
            : want === 'code' && field.element !== 'text' && field.element !== 'password' ? 'the focused element is not a text field' : null;
    if (!refused) return { kind: 'page', target: target!, origin: field.origin, field };
    await field.release().catch(() => {});
    return { refused, target: field.origin };
  }
  const window = desktop.focusedWindow ? await desktop.focusedWindow().catch(() => null) : null;
  if (!window) return { refused: 'no page of the browser has the focus, and the focused window cannot be told', target: '' };
  const named = `${window.className} “${window.title}”`;
  // The browser's own window with no page focused (a menu, the address bar): its pages are checked above or not at all.
  if (desktop.focusedField && /chrom/i.test(`${window.instance} ${window.className}`)) {
    return { refused: 'the browser has the focus outside its page (the address bar or a menu?), which cannot be verified', target: named };
  }
  const target = matchWindow(targets, window);
  if (!target) return { refused: `the focused window (${named}) is not a target of this credential`, target: named };
  return { kind: 'window', target, window };
}

/** After typing: the keys went where they were checked to go. */
export async function stillThere(desktop: Probe, place: Place): Promise<boolean> {
  if (place.kind === 'page') return place.field.stillFocused().catch(() => false);
  const now = await desktop.focusedWindow?.().catch(() => null);
  return !!now && now.id === place.window.id && now.title === place.window.title;
}

export const release = (place: Place) => (place.kind === 'page' ? place.field.release().catch(() => {}) : Promise.resolve());
