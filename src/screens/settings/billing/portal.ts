// Opens the payment provider's portal (the local test page or Stripe's) in a new tab (spec §7).
import { openPortalSession } from '../../../lib/billing-api.ts';

export type PortalEnv = { open: (url: string) => void; alert: (message: string) => void; log: (...args: unknown[]) => void };

const browser: PortalEnv = {
  open: (url) => void window.open(url, '_blank', 'noopener'),
  alert: (message) => window.alert(message),
  log: (...args) => console.error(...args),
};

/**
 * Whether the portal was opened since the billing page last caught up: billing data is not refetched on focus
 * (spec §9), except once on coming back from the portal, where the card or the details just changed.
 */
let portalVisited = false;
export const takePortalVisit = (): boolean => {
  const visited = portalVisited;
  portalVisited = false;
  return visited;
};

export async function openPortal(flowType?: 'payment_method_update', env: PortalEnv = browser): Promise<void> {
  try {
    const { url } = await openPortalSession(flowType);
    portalVisited = true;
    env.open(url);
  } catch (err) {
    env.log('billing portal', err);
    env.alert('Failed to open Stripe portal');
  }
}
