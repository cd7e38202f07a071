// Opens the payment provider's portal (the local test page or Stripe's) in a new tab (spec §7).
import { openPortalSession } from '../../../lib/billing-api.ts';

export type PortalEnv = { open: (url: string) => void; alert: (message: string) => void; log: (...args: unknown[]) => void };

const browser: PortalEnv = {
  open: (url) => void window.open(url, '_blank', 'noopener'),
  alert: (message) => window.alert(message),
  log: (...args) => console.error(...args),
};

export async function openPortal(flowType?: 'payment_method_update', env: PortalEnv = browser): Promise<void> {
  try {
    const { url } = await openPortalSession(flowType);
    env.open(url);
  } catch (err) {
    env.log('billing portal', err);
    env.alert('Failed to open Stripe portal');
  }
}
