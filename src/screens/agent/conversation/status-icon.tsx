// The status icon of a thread (spec §2): warning, spinner, hourglass or drag handle, check.
import type { StatusIcon as IconName } from './thread-status.ts';
import { CheckIcon, DragIcon, HourglassIcon, WarningIcon } from '../../../ui/icons.tsx';

const LABELS: Record<IconName, string> = {
  warning: 'Failed',
  spinner: 'Running',
  hourglass: 'Scheduled',
  drag: 'Scheduled',
  held: 'Held',
  check: 'Done',
};

export function ThreadStatusIcon({ icon }: { icon: IconName | null }) {
  if (!icon) return null;
  const label = LABELS[icon];
  return (
    <span className={`thread-status thread-status-${icon}`} role="img" aria-label={label} title={label}>
      {icon === 'warning' && <WarningIcon size={16} />}
      {icon === 'spinner' && <span className="thread-spinner" />}
      {(icon === 'hourglass' || icon === 'held') && <HourglassIcon size={16} />}
      {icon === 'drag' && <DragIcon size={16} strokeWidth={3.2} />}
      {icon === 'check' && <CheckIcon size={16} />}
    </span>
  );
}
