// The admin's more-options menu on the agent screen (spec §2 "Agent screen"). Traces, schedules
// and email settings belong to issues that have not landed: they show, disabled, and say so.
import { Menu } from '../../ui/menu.tsx';

const NOT_YET = { disabled: true, title: 'Not available yet' };

export function MoreOptionsMenu({ onDeveloperOptions }: { onDeveloperOptions: () => void }) {
  return (
    <Menu
      label="More options"
      items={[
        { label: 'Developer options', onSelect: onDeveloperOptions },
        { label: 'Show traces', ...NOT_YET },
        { label: 'Schedules', ...NOT_YET },
        { label: 'Email settings', ...NOT_YET },
      ]}
    />
  );
}
