// An endpoint's own actions: turn it off or on, delete it (asks first: the receiver stops getting events at once),
// and send a test event. One at a time per endpoint; a refusal's detail is kept to show on the endpoint's card.
import { useState } from 'react';
import { detailOr } from '../../../lib/http.ts';
import type { WebhookEndpoint } from '../../../lib/types.ts';
import { deleteWebhook, deliveriesPath, sendTestEvent, updateWebhook } from '../../../lib/webhooks-api.ts';
import { mutate } from '../../../lib/use-resource.ts';

export const deleteQuestion = (url: string) => `Delete the endpoint ${url}? It stops receiving events at once.`;

export type EndpointAction = 'toggle' | 'delete' | 'test';

type Callbacks = {
  onSaved: (endpoint: WebhookEndpoint) => void;
  onDeleted: (id: number) => void;
  /** A test delivery was queued (the log then shows it). */
  onTested: () => void;
};

export function useEndpointActions(endpoint: WebhookEndpoint, { onSaved, onDeleted, onTested }: Callbacks) {
  const [busy, setBusy] = useState<EndpointAction | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = async (action: EndpointAction, work: () => Promise<void>, failure: string) => {
    setBusy(action);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(detailOr(err, failure));
    } finally {
      setBusy(null);
    }
  };

  const toggle = () =>
    run('toggle', async () => onSaved(await updateWebhook(endpoint.id, { enabled: !endpoint.enabled })),
      endpoint.enabled ? 'Failed to disable the endpoint' : 'Failed to enable the endpoint');

  const remove = async () => {
    if (!window.confirm(deleteQuestion(endpoint.url))) return;
    // onDeleted unmounts this card, so the busy state is not reset after it.
    let deleted = false;
    await run('delete', async () => {
      await deleteWebhook(endpoint.id);
      deleted = true;
    }, 'Failed to delete the endpoint');
    if (deleted) onDeleted(endpoint.id);
  };

  const test = () =>
    run('test', async () => {
      await sendTestEvent(endpoint.id);
      await mutate(deliveriesPath(endpoint.id)); // from the server: the log shows the delivery as queued
      onTested();
    }, 'Failed to send a test event');

  return { busy, error, toggle, remove, test };
}
