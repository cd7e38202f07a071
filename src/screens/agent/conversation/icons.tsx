// Stroke icons of the conversation panel (24×24, currentColor), drawn like src/ui/icons.tsx.
import type { SVGProps } from 'react';

type IconProps = SVGProps<SVGSVGElement> & { size?: number };

function icon(paths: string[]) {
  return function Icon({ size = 18, ...props }: IconProps) {
    return (
      <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.9}
        strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false" {...props}>
        {paths.map((d) => <path key={d} d={d} />)}
      </svg>
    );
  };
}

export const WarningIcon = icon(['M10.3 3.9L1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z', 'M12 9v4', 'M12 17h.01']);
export const HourglassIcon = icon(['M6 2h12', 'M6 22h12', 'M7 2v4a5 5 0 0 0 10 0V2', 'M7 22v-4a5 5 0 0 1 10 0v4']);
export const DragIcon = icon(['M9 5h.01', 'M15 5h.01', 'M9 12h.01', 'M15 12h.01', 'M9 19h.01', 'M15 19h.01']);
export const CheckIcon = icon(['M20 6L9 17l-5-5']);
export const ListIcon = icon(['M8 6h13', 'M8 12h13', 'M8 18h13', 'M3 6h.01', 'M3 12h.01', 'M3 18h.01']);
export const PlusIcon = icon(['M12 5v14', 'M5 12h14']);
export const ChevronIcon = icon(['M6 9l6 6 6-6']);
export const TrashIcon = icon(['M3 6h18', 'M8 6V4h8v2', 'M19 6l-1 14H6L5 6', 'M10 11v6', 'M14 11v6']);
export const UnscheduleIcon = icon(['M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20z', 'M8 12h8']);
export const PaperclipIcon = icon(['M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5']);
export const SendIcon = icon(['M22 2L11 13', 'M22 2l-7 20-4-9-9-4 20-7z']);
export const FileIcon = icon(['M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z', 'M14 2v6h6']);
export const RetryIcon = icon(['M1 4v6h6', 'M3.5 15a9 9 0 1 0 2.1-9.4L1 10']);
export const CloseSmallIcon = icon(['M18 6L6 18', 'M6 6l12 12']);
export const ToolIcon = icon(['M14.7 6.3a1 1 0 0 0 0 1.4l1.6 1.6a1 1 0 0 0 1.4 0l3.8-3.8a6 6 0 0 1-7.9 7.9l-6.9 6.9a2.1 2.1 0 0 1-3-3l6.9-6.9a6 6 0 0 1 7.9-7.9z']);

/** A square inside the round stop button. */
export function StopIcon({ size = 14 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 14 14" aria-hidden="true" focusable="false">
      <rect x="1" y="1" width="12" height="12" rx="2" fill="currentColor" />
    </svg>
  );
}
