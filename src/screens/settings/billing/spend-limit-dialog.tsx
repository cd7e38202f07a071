// The 'Set spend limit' dialog (spec §2, §5, §8): presets 50/100/200/500, No limit (0) or a custom
// whole amount (digits only). An invalid choice alerts 'Please enter a valid amount'; saving reloads
// the page, a failed save alerts 'Failed to update limit'.
import { useState, type FormEvent } from 'react';
import { setSpendLimit } from '../../../lib/billing-api.ts';
import { FormModal } from './form-modal.tsx';
import { digitsOnly, formatMoney, LIMIT_PRESETS_CENTS, limitCents, type LimitChoice } from './money.ts';

type Env = { reload: () => void; alert: (message: string) => void };
const browser: Env = { reload: () => location.reload(), alert: (message) => window.alert(message) };

type Selection = string; // 'preset:5000' | 'none' | 'custom'

function initial(currentCents: number): { selection: Selection; custom: string } {
  if (currentCents === 0) return { selection: 'none', custom: '' };
  if ((LIMIT_PRESETS_CENTS as readonly number[]).includes(currentCents)) return { selection: `preset:${currentCents}`, custom: '' };
  return { selection: 'custom', custom: String(Math.floor(currentCents / 100)) };
}

type SpendLimitDialogProps = { currentCents: number; currency: string; onClose: () => void; env?: Env };

export function SpendLimitDialog({ currentCents, currency, onClose, env = browser }: SpendLimitDialogProps) {
  const start = initial(currentCents);
  const [selection, setSelection] = useState<Selection>(start.selection);
  const [custom, setCustom] = useState(start.custom);
  const [busy, setBusy] = useState(false);

  const choice = (): LimitChoice =>
    selection === 'none' ? { kind: 'none' } : selection === 'custom' ? { kind: 'custom', text: custom } : { kind: 'preset', cents: Number(selection.slice(7)) };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const result = limitCents(choice());
    if ('error' in result) return env.alert(result.error);
    setBusy(true);
    try {
      await setSpendLimit(result.cents);
      env.reload();
    } catch {
      setBusy(false);
      env.alert('Failed to update limit');
    }
  };

  const option = (value: Selection, label: string) => (
    <label key={value} className="limit-option">
      <input type="radio" name="spend-limit" value={value} checked={selection === value} onChange={() => setSelection(value)} />
      <span>{label}</span>
    </label>
  );

  return (
    <FormModal title="Set spend limit" busy={busy} onClose={onClose} onSubmit={save} className="limit-form">
      <fieldset className="limit-options">
        <legend className="muted">Monthly limit</legend>
        {LIMIT_PRESETS_CENTS.map((cents) => option(`preset:${cents}`, formatMoney(cents, currency, { whole: true })))}
        {option('none', 'No limit')}
        {option('custom', 'Custom')}
      </fieldset>
      {selection === 'custom' && (
        <label className="field limit-custom">
          <span>Custom amount ({currency.toUpperCase()}, whole units)</span>
          <input type="text" inputMode="numeric" pattern="[0-9]*" autoComplete="off" value={custom}
            onChange={(e) => setCustom(digitsOnly(e.target.value))} autoFocus />
        </label>
      )}
    </FormModal>
  );
}
