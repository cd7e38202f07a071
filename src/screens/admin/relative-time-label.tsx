// A relative time ('5m ago') with the full local date and time on hover.
import { formatDateTime } from '../../ui/trace-format.ts';
import { relativeTime } from './relative-time.ts';

export function RelativeTime({ value, now }: { value: string; now?: number }) {
  return (
    <time dateTime={value} title={formatDateTime(value)}>
      {relativeTime(value, now)}
    </time>
  );
}
