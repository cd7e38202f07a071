// Notifications settings (/settings/notifications, issue 47): Web Push per device. This device is allowed here (the
// browser's permission, a subscription on the service worker, the events it wants); the user's other devices are
// listed with Remove. `env` is the browser's (push-device.ts) unless a test gives its own.
import { useCallback, useState } from 'react';
import { PUSH_DEVICES_PATH, type PushDevice } from '../../../lib/push-api.ts';
import { browserPushEnv, type PushEnv } from '../../../lib/push-device.ts';
import { useTitle } from '../../../lib/title.tsx';
import { useResource } from '../../../lib/use-resource.ts';
import { SettingsLayout } from '../settings-layout.tsx';
import { OtherDevices } from './other-devices.tsx';
import { ThisDevice } from './this-device.tsx';
import { usePushDevice } from './use-push-device.ts';

export default function NotificationsScreen({ env: given }: { env?: PushEnv }) {
  useTitle('Settings');
  const [env] = useState(() => given ?? browserPushEnv());
  const list = useResource<PushDevice[]>(PUSH_DEVICES_PATH);
  const { mutate } = list;
  const setDevices = useCallback((change: (devices: PushDevice[]) => PushDevice[]) => void mutate((current) => change(current ?? [])), [mutate]);
  // A list that failed to load still lets this device be allowed: it then counts as not on.
  const push = usePushDevice(env, list.data ?? (list.error ? [] : undefined), setDevices);
  const thisId = push.status.kind === 'on' ? push.status.device.id : null;
  // Until this device is known, it could be any of the list's.
  const others = push.status.kind === 'checking' ? undefined : list.data?.filter((d) => d.id !== thisId);

  return (
    <SettingsLayout>
      <div className="notifications">
        <div>
          <h2 className="notifications-heading">Notifications</h2>
          <p className="muted notifications-intro">
            Get a notification on your phone or computer when an agent needs you, mail awaits your approval, the spend
            limit is reached or a run fails. A help request&apos;s notification opens the agent&apos;s desktop with control ready.
          </p>
        </div>
        <ThisDevice push={push} />
        <OtherDevices devices={others} error={list.error}
          onRemoved={(id) => setDevices((devices) => devices.filter((d) => d.id !== id))} />
      </div>
    </SettingsLayout>
  );
}
