// What each kind of replay marker is called on screen (the colours are styles/replay.css's, by data-kind).
import type { MarkerKind } from '../../lib/replay-api.ts';

export const KIND_LABELS: Record<MarkerKind, string> = {
  model_call: 'Model call',
  action: 'Action',
  message: 'Message',
  help: 'Help',
  takeover: 'Take-over',
  approval: 'Approval',
  guard: 'Guard',
  error: 'Error',
};

/** A kind the server may add later still gets a name. */
export const kindLabel = (kind: string) => KIND_LABELS[kind as MarkerKind] ?? kind.replace(/_/g, ' ');
