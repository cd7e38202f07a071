import {
  ADMIN, byRole, cleanup, click, dialogs, FakeApi, getRole, json, renderScreen, settle, text, type, type Call,
} from './helpers/screen-harness.tsx';
import { act } from 'react';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SchedulesModal } from '../../src/screens/agent/schedules/schedules-modal.tsx';
import { formatNextRun } from '../../src/screens/agent/schedules/schedule-form.ts';
import { localTimeToUtc, shiftWeekdays, utcTimeToLocal } from '../../src/lib/schedule-rules.ts';

// Times go out in UTC and come back in local time: expectations use the same conversion, so the
// tests hold in any time zone.
const DAILY = {
  id: 11, agent_id: 7, frequency: 'daily', schedule_time: '08:15', weekdays: null, week_interval: null, day_of_month: null, interval: null,
  message: 'Morning summary', next_run: '2030-05-02T08:15:00.000Z', last_run: null,
  created_at: '2030-05-01T00:00:00.000Z', updated_at: '2030-05-01T00:00:00.000Z',
};

let closed = 0;
const modal = () => <SchedulesModal agentId={7} onClose={() => closed++} />;
const rows = () => [...document.querySelectorAll<HTMLTableRowElement>('tbody tr.schedule-row')];
const rowStates = () => rows().map((r) => r.dataset.state);
function field<T extends HTMLElement>(row: Element, name: string): T {
  const label = [...row.querySelectorAll('label')].find((l) =>
    l.querySelector('span')?.textContent === name || l.querySelector('input')?.getAttribute('aria-label') === name);
  if (!label) throw new Error(`no field ${name}`);
  return label.querySelector<T>('input, select, textarea')!;
}
async function choose(el: HTMLSelectElement, value: string) {
  await act(async () => {
    Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event('change', { bubbles: true }));
  });
}
const button = (row: Element, name: string) => [...row.querySelectorAll('button')].find((b) => b.textContent === name)!;
const editing = () => rows().find((r) => r.dataset.state !== 'saved')!;

function api(list: () => unknown = () => [DAILY]) {
  let next = 100;
  return new FakeApi(ADMIN)
    .on('GET /api/scheduler/7', list)
    .on('POST /api/scheduler/7', (call: Call) =>
      json({ ...(call.body as object), id: next++, agent_id: 7, next_run: '2030-06-01T10:00:00.000Z', last_run: null }, 201))
    .on('PUT /api/scheduler/11', (call: Call) => ({ ...DAILY, ...(call.body as object), next_run: '2030-07-01T00:00:00.000Z' }))
    .on('DELETE /api/scheduler/11', () => json(null, 204));
}

const ui = suite('Schedules modal');
ui.before.each(() => {
  closed = 0;
  dialogs.confirms.length = 0;
  dialogs.answer = true;
});
ui.after.each(cleanup);

ui('lists saved schedules under Frequency, Time/Details, Message, Actions, in local time with the next run', async () => {
  await renderScreen(api(), modal());
  assert.is(getRole('dialog').querySelector('h2')!.textContent, 'Schedules');
  assert.equal([...document.querySelectorAll('th')].map((th) => th.textContent), ['Frequency', 'Time/Details', 'Message', 'Actions']);
  assert.equal(rowStates(), ['saved']);
  const row = rows()[0];
  assert.is(row.cells[0].textContent, 'Daily');
  assert.is(row.querySelector('.schedule-details')!.textContent, utcTimeToLocal('08:15').time);
  assert.is(row.querySelector('.schedule-next')!.textContent, `Next run: ${formatNextRun(DAILY.next_run)}`);
  assert.is(row.cells[2].textContent, 'Morning summary');
  assert.ok(getRole('button', '+ Add Schedule'));
});

ui('+ Add Schedule opens a new row with the defaults; Cancel drops it', async () => {
  await renderScreen(api(() => []), modal());
  assert.match(text(), 'No schedules');
  await click(getRole('button', '+ Add Schedule'));
  assert.equal(rowStates(), ['new']);
  const row = editing();
  assert.is(field<HTMLSelectElement>(row, 'Frequency').value, 'daily');
  await choose(field(row, 'Frequency'), 'interval');
  const interval = field<HTMLInputElement>(editing(), 'Interval (seconds)');
  assert.is(interval.value, '60');
  assert.is(interval.min, '1');
  await choose(field(editing(), 'Frequency'), 'monthly');
  const day = field<HTMLInputElement>(editing(), 'Day of month');
  assert.equal([day.value, day.min, day.max], ['1', '1', '31']);
  await choose(field(editing(), 'Frequency'), 'weekly');
  assert.equal(byRole('button').filter((b) => b.hasAttribute('aria-pressed')).map((b) => b.textContent), ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']);
  await click(button(editing(), 'Cancel'));
  assert.equal(rowStates(), []);
});

ui('Save shows each of the four validation messages and sends nothing until the row is valid', async () => {
  const fake = api(() => []);
  await renderScreen(fake, modal());
  await click(getRole('button', '+ Add Schedule'));
  await type(field(editing(), 'Message'), 'Do the thing');

  await choose(field(editing(), 'Frequency'), 'interval');
  await type(field(editing(), 'Interval (seconds)'), '0');
  await click(button(editing(), 'Save'));
  assert.is(getRole('alert').textContent, 'Interval (seconds) must be > 0');

  await choose(field(editing(), 'Frequency'), 'daily');
  await type(field(editing(), 'Time'), '');
  await click(button(editing(), 'Save'));
  assert.is(getRole('alert').textContent, 'Time must be in HH:MM format');

  await type(field(editing(), 'Time'), '10:00');
  await choose(field(editing(), 'Frequency'), 'weekly');
  await click(button(editing(), 'Save'));
  assert.is(getRole('alert').textContent, 'Select at least one weekday');

  await choose(field(editing(), 'Frequency'), 'monthly');
  await type(field(editing(), 'Day of month'), '32');
  await click(button(editing(), 'Save'));
  assert.is(getRole('alert').textContent, 'Day of month must be between 1 and 31');

  assert.equal(fake.calls.filter((c) => c.path.startsWith('/api/scheduler') && c.method !== 'GET'), []);
  assert.equal(rowStates(), ['new']);
});

ui('a valid new row is sent in UTC and becomes a saved row', async () => {
  const fake = api(() => []);
  await renderScreen(fake, modal());
  await click(getRole('button', '+ Add Schedule'));
  await choose(field(editing(), 'Frequency'), 'weekly');
  await type(field(editing(), 'Time'), '07:30');
  await click(getRole('button', 'Mon'));
  await click(getRole('button', 'Thu'));
  assert.is(getRole('button', 'Mon').getAttribute('aria-pressed'), 'true');
  await type(field(editing(), 'Week interval'), '2');
  await type(field(editing(), 'Message'), '  Weekly review  ');
  await click(button(editing(), 'Save'));
  await settle();
  const utc = localTimeToUtc('07:30');
  assert.equal(fake.calls.find((c) => c.method === 'POST' && c.path === '/api/scheduler/7')!.body, {
    frequency: 'weekly', schedule_time: utc.time, weekdays: shiftWeekdays([0, 3], utc.dayShift), week_interval: 2,
    day_of_month: null, interval: null, message: 'Weekly review',
  });
  assert.equal(rowStates(), ['saved']);
  assert.is(rows()[0].querySelector('.schedule-details')!.textContent, '07:30 · Mon, Thu · every 2 weeks');
  assert.is(byRole('alert').length, 0);
});

ui('Edit turns a saved row into a form with its values; Save sends PUT; Cancel restores it', async () => {
  const fake = api();
  await renderScreen(fake, modal());
  await click(button(rows()[0], 'Edit'));
  assert.equal(rowStates(), ['editing']);
  assert.is(field<HTMLInputElement>(editing(), 'Time').value, utcTimeToLocal('08:15').time);
  assert.is(field<HTMLTextAreaElement>(editing(), 'Message').value, 'Morning summary');
  await click(button(editing(), 'Cancel'));
  assert.equal(rowStates(), ['saved']);

  await click(button(rows()[0], 'Edit'));
  await type(field(editing(), 'Message'), 'Evening summary');
  await click(button(editing(), 'Save'));
  await settle();
  const put = fake.calls.find((c) => c.method === 'PUT')!;
  assert.is((put.body as { message: string }).message, 'Evening summary');
  assert.equal(rowStates(), ['saved']);
  assert.is(rows()[0].cells[2].textContent, 'Evening summary');
});

ui("a failed save says 'Failed to save schedule' (with the server's 422 words) and keeps the row open", async () => {
  const fake = api().on('PUT /api/scheduler/11', () => json({ detail: [{ loc: ['body', 'message'], msg: 'Message must be at most 10000 characters' }] }, 422));
  await renderScreen(fake, modal());
  await click(button(rows()[0], 'Edit'));
  await click(button(editing(), 'Save'));
  await settle();
  assert.is(getRole('alert').textContent, 'Failed to save scheduleMessage must be at most 10000 characters');
  assert.equal(rowStates(), ['editing']);
  fake.on('PUT /api/scheduler/11', () => json({ detail: 'Internal server error' }, 500));
  await click(button(editing(), 'Save'));
  await settle();
  assert.is(getRole('alert').textContent, 'Failed to save schedule');
});

ui("Delete asks 'Delete this schedule?'; no keeps it, yes removes it; a failure says 'Failed to delete schedule'", async () => {
  const fake = api();
  await renderScreen(fake, modal());
  dialogs.answer = false;
  await click(button(rows()[0], 'Delete'));
  assert.equal(dialogs.confirms, ['Delete this schedule?']);
  assert.equal(rowStates(), ['saved']);
  dialogs.answer = true;
  fake.on('DELETE /api/scheduler/11', () => json({ detail: 'boom' }, 500));
  await click(button(rows()[0], 'Delete'));
  await settle();
  assert.is(getRole('alert').textContent, 'Failed to delete schedule');
  assert.equal(rowStates(), ['saved']);
  fake.on('DELETE /api/scheduler/11', () => json(null, 204));
  await click(button(rows()[0], 'Delete'));
  await settle();
  assert.equal(rowStates(), []);
  assert.equal(fake.calls.filter((c) => c.method === 'DELETE').length, 2);
});

ui("a failed load says 'Failed to load schedules'; Retry loads again", async () => {
  let fail = true;
  await renderScreen(api(() => (fail ? json({ detail: 'boom' }, 500) : [DAILY])), modal());
  assert.is(getRole('alert').querySelector('p')!.textContent, 'Failed to load schedules');
  assert.is(byRole('button', '+ Add Schedule').length, 0);
  fail = false;
  await click(getRole('button', 'Retry'));
  await settle();
  assert.equal(rowStates(), ['saved']);
  await click(getRole('button', 'Close'));
  assert.is(closed, 1);
});

ui.run();
