// An endpoint's state as the list shows it. Disabled wins over failing: a disabled endpoint is sent nothing, whatever
// failed before (turning it back on clears both). Failing means deliveries keep failing while it is still on.
import type { WebhookEndpoint } from '../../../lib/types.ts';
import { formatDateTime } from '../../../ui/trace-format.ts';

export type EndpointTone = 'active' | 'failing' | 'disabled';
export type EndpointStatus = { tone: EndpointTone; label: string; reason: string | null };

export function endpointStatus(endpoint: Pick<WebhookEndpoint, 'enabled' | 'disabled_reason' | 'failing_since'>): EndpointStatus {
  if (!endpoint.enabled) return { tone: 'disabled', label: 'Disabled', reason: endpoint.disabled_reason };
  if (endpoint.failing_since) return { tone: 'failing', label: `Failing since ${formatDateTime(endpoint.failing_since)}`, reason: null };
  return { tone: 'active', label: 'Active', reason: null };
}
