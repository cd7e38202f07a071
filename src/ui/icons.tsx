// Every icon and small drawing of the app, made by the one icon() factory (24×24 stroke icons in
// currentColor unless told otherwise), so no icon font or package and no SVG written by hand elsewhere.
import type { ReactNode, SVGProps } from 'react';

export type IconProps = SVGProps<SVGSVGElement> & { size?: number };

type IconOptions = {
  /** Width and height; null leaves sizing to CSS. @default 20 */
  size?: number | null;
  /** @default 1.8 */
  strokeWidth?: number;
  /** Filled shapes in currentColor instead of strokes. */
  filled?: boolean;
  /** @default '0 0 24 24' */
  viewBox?: string;
  /** Shapes other than paths (styled by CSS). */
  extra?: ReactNode;
};

function icon(paths: string[], options: IconOptions = {}) {
  const { size: defaultSize = 20, strokeWidth = 1.8, filled = false, viewBox = '0 0 24 24', extra } = options;
  return function Icon({ size = defaultSize ?? undefined, ...props }: IconProps) {
    const paint = filled
      ? { fill: 'currentColor' }
      : { fill: 'none', stroke: 'currentColor', strokeWidth, strokeLinecap: 'round' as const, strokeLinejoin: 'round' as const };
    return (
      <svg width={size} height={size} viewBox={viewBox} {...paint} aria-hidden="true" focusable="false" {...props}>
        {paths.map((d) => <path key={d} d={d} />)}
        {extra}
      </svg>
    );
  };
}

// --- shell and screens
export const AgentsIcon = icon(['M4 5h16v10H4z', 'M9 19h6', 'M12 15v4']);
export const ReportsIcon = icon(['M6 3h9l4 4v14H6z', 'M14 3v5h5', 'M9 12h7', 'M9 16h7']);
export const SettingsIcon = icon([
  'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6z',
  'M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5' +
  'V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1' +
  'H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5' +
  'V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8' +
  'V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z',
]);
export const SunIcon = icon([
  'M12 17a5 5 0 1 0 0-10 5 5 0 0 0 0 10z', 'M12 1v2', 'M12 21v2', 'M4.2 4.2l1.4 1.4', 'M18.4 18.4l1.4 1.4',
  'M1 12h2', 'M21 12h2', 'M4.2 19.8l1.4-1.4', 'M18.4 5.6l1.4-1.4',
]);
export const MoonIcon = icon(['M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z']);
export const ImpersonateIcon = icon(['M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2', 'M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M17 11l2 2 4-4']);
export const DashboardIcon = icon(['M3 3h7v9H3z', 'M14 3h7v5h-7z', 'M14 12h7v9h-7z', 'M3 16h7v5H3z']);
export const OpsIcon = icon(['M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z', 'M12 6v6l4 2']);
export const TracesIcon = icon(['M3 12h4l3-8 4 16 3-8h4']);
export const CloseIcon = icon(['M18 6L6 18', 'M6 6l12 12']);
export const MoreIcon = icon(['M12 13a1 1 0 1 0 0-2 1 1 0 0 0 0 2z', 'M19 13a1 1 0 1 0 0-2 1 1 0 0 0 0 2z', 'M5 13a1 1 0 1 0 0-2 1 1 0 0 0 0 2z']);
export const SearchIcon = icon(['M11 19a8 8 0 1 0 0-16 8 8 0 0 0 0 16z', 'M21 21l-4.3-4.3']);
export const EditIcon = icon(['M12 20h9', 'M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4z']);
export const CardIcon = icon(['M2 6h20v12H2z', 'M2 10h20', 'M6 15h4']);
export const TrashIcon = icon(['M3 6h18', 'M8 6V4h8v2', 'M19 6l-1 14H6L5 6', 'M10 11v6', 'M14 11v6'], { size: 18 });
/** Two-way arrows of the chat panel's width toggle. */
export const ArrowsIcon = icon(['M3 12h18', 'M7 8l-4 4 4 4', 'M17 8l4 4-4 4'], { size: 18 });
/** Fast playback. */
export const FastForwardIcon = icon(
  ['M3 5.5v13a.5.5 0 0 0 .8.4L12 12.4v6.1a.5.5 0 0 0 .8.4l8.6-6.5a.5.5 0 0 0 0-.8l-8.6-6.5a.5.5 0 0 0-.8.4v6.1L3.8 5.1a.5.5 0 0 0-.8.4z'],
  { size: 16, filled: true },
);
// --- replay
export const PlayIcon = icon(['M7 4.5v15a.5.5 0 0 0 .8.4l11-7.5a.5.5 0 0 0 0-.8l-11-7.5a.5.5 0 0 0-.8.4z'], { filled: true });
export const PauseIcon = icon(['M6 4h4v16H6z', 'M14 4h4v16h-4z'], { filled: true });
export const PreviousIcon = icon(['M19 5v14l-9-7z', 'M6 5v14'], { size: 18, strokeWidth: 2 });
export const NextIcon = icon(['M5 5v14l9-7z', 'M18 5v14'], { size: 18, strokeWidth: 2 });
export const DownloadIcon = icon(['M12 3v12', 'M7 10l5 5 5-5', 'M4 19h16'], { size: 16, strokeWidth: 2 });
export const ShareIcon = icon(['M4 12v7a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-7', 'M16 6l-4-4-4 4', 'M12 2v13'], { size: 16, strokeWidth: 2 });
export const ReloadIcon = icon(['M21 12a9 9 0 1 1-2.6-6.4', 'M21 4v5h-5'], { size: 14, strokeWidth: 2 });
export const ChevronRightIcon = icon(['M9 6l6 6-6 6'], { size: 14, strokeWidth: 2.2 });
export const OpenIcon = icon(['M14 4h6v6', 'M20 4l-9 9', 'M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5'], { size: 16 });
/** The live desktop's key bar on a phone: opens the phone's keyboard. */
export const KeyboardIcon = icon(['M2 6h20v12H2z', 'M6 10h.01', 'M10 10h.01', 'M14 10h.01', 'M18 10h.01', 'M7 14h10']);
/** The agent's pointer over the live desktop (colours from CSS). */
export const PointerIcon = icon(['M4 2l15 11.5-6.6 1 3.9 7.2-2.9 1.5-3.8-7.3L4 20z'], { size: 22 });
/** An empty desktop window: the agent card's stand-in for a screenshot (sized and coloured by CSS). */
export const DesktopPlaceholder = icon(['M9 4h46a3 3 0 0 1 3 3v26a3 3 0 0 1-3 3H9a3 3 0 0 1-3-3V7a3 3 0 0 1 3-3z', 'M6 10h52', 'M14 18h16M14 23h24M14 28h12'], {
  size: null,
  viewBox: '0 0 64 40',
  extra: (
    <>
      <circle cx="10.5" cy="7" r="1" />
      <circle cx="14" cy="7" r="1" />
      <circle cx="17.5" cy="7" r="1" />
    </>
  ),
});

// --- conversation panel (a little smaller and bolder)
const small = { size: 18, strokeWidth: 1.9 };
export const WarningIcon = icon(['M10.3 3.9L1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z', 'M12 9v4', 'M12 17h.01'], small);
export const HourglassIcon = icon(['M6 2h12', 'M6 22h12', 'M7 2v4a5 5 0 0 0 10 0V2', 'M7 22v-4a5 5 0 0 1 10 0v4'], small);
export const DragIcon = icon(['M9 5h.01', 'M15 5h.01', 'M9 12h.01', 'M15 12h.01', 'M9 19h.01', 'M15 19h.01'], small);
export const CheckIcon = icon(['M20 6L9 17l-5-5'], small);
export const ListIcon = icon(['M8 6h13', 'M8 12h13', 'M8 18h13', 'M3 6h.01', 'M3 12h.01', 'M3 18h.01'], small);
export const PlusIcon = icon(['M12 5v14', 'M5 12h14'], small);
export const ChevronIcon = icon(['M6 9l6 6 6-6'], small);
export const UnscheduleIcon = icon(['M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z', 'M8 12h8'], small);
export const PaperclipIcon = icon(['M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5'], small);
export const SendIcon = icon(['M22 2L11 13', 'M22 2l-7 20-4-9-9-4 20-7z'], small);
export const FileIcon = icon(['M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z', 'M14 2v6h6'], small);
export const RetryIcon = icon(['M1 4v6h6', 'M3.5 15a9 9 0 1 0 2.1-9.4L1 10'], small);
export const ToolIcon = icon(
  ['M14.7 6.3a1 1 0 0 0 0 1.4l1.6 1.6a1 1 0 0 0 1.4 0l3.8-3.8a6 6 0 0 1-7.9 7.9l-6.9 6.9a2.1 2.1 0 0 1-3-3l6.9-6.9a6 6 0 0 1 7.9-7.9z'],
  small,
);
/** A square inside the round stop button. */
export const StopIcon = icon(['M3 1h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H3a2 2 0 0 1-2-2V3a2 2 0 0 1 2-2z'], { size: 14, filled: true, viewBox: '0 0 14 14' });

/**
 * The app's mark (public/favicon.svg), drawn inline: the rail and the sign-in card show it without a
 * request of their own. `label` names it; without one it is decoration.
 */
export function AppLogo({ size = 32, label }: { size?: number; label?: string }) {
  const named = label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': true as const };
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" focusable="false" {...named}>
      <rect width="32" height="32" rx="8" fill="#4f46e5" />
      <rect x="7" y="9" width="18" height="12" rx="2" fill="none" stroke="#fff" strokeWidth="2" />
      <path d="M12 25h8" stroke="#fff" strokeWidth="2" strokeLinecap="round" />
      <circle cx="16" cy="15" r="2" fill="#fff" />
    </svg>
  );
}
