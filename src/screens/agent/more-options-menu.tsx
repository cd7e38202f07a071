// The admin's more-options menu on the agent screen (spec §2 "Agent screen").
import { Menu } from '../../ui/menu.tsx';

type MoreOptionsMenuProps = {
  onDeveloperOptions: () => void;
  /** Opens the traces panel; the panel's own close button hides it. */
  onShowTraces: () => void;
  onSchedules: () => void;
  onEmailSettings: () => void;
};

export function MoreOptionsMenu({ onDeveloperOptions, onShowTraces, onSchedules, onEmailSettings }: MoreOptionsMenuProps) {
  return (
    <Menu
      label="More options"
      items={[
        { label: 'Developer options', onSelect: onDeveloperOptions },
        { label: 'Show traces', onSelect: onShowTraces },
        { label: 'Schedules', onSelect: onSchedules },
        { label: 'Email settings', onSelect: onEmailSettings },
      ]}
    />
  );
}
