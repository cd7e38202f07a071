// The admin's more-options menu on the agent screen (spec §2 "Agent screen"). Schedules belong to
// work that has not landed: it shows, disabled, and says so.
import { Menu } from '../../ui/menu.tsx';

const NOT_YET = { disabled: true, title: 'Not available yet' };

type MoreOptionsMenuProps = {
  onDeveloperOptions: () => void;
  /** Opens the traces panel; the panel's own close button hides it. */
  onShowTraces: () => void;
  onEmailSettings: () => void;
};

export function MoreOptionsMenu({ onDeveloperOptions, onShowTraces, onEmailSettings }: MoreOptionsMenuProps) {
  return (
    <Menu
      label="More options"
      items={[
        { label: 'Developer options', onSelect: onDeveloperOptions },
        { label: 'Show traces', onSelect: onShowTraces },
        { label: 'Schedules', ...NOT_YET },
        { label: 'Email settings', onSelect: onEmailSettings },
      ]}
    />
  );
}
