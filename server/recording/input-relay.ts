// With several instances, a recording lives on the instance that started it, while the viewer holding control may
// be on another: that one's input and file drops travel to the recorder over the bus. Each instance says when it
// starts and stops recording an agent (so the others know where to send), numbers what it passes on per agent,
// and the recorder puts it back in order (NOTIFYs sent over several pool connections may overtake one another).
// A stop passed on says how many events came before it, and the recorder waits for them (up to 3 s).
import type { DesktopInput } from '../desktop/index.ts';
import type { Bus } from '../realtime/bus.ts';
import { TOPICS } from '../realtime/topics.ts';

const WAIT_MS = 3000;

export type Recorder = { input(agentId: number, event: DesktopInput): void; dropped(agentId: number, name: string): void };

export class InputRelay {
  /** Agents another instance records now. */
  private recordedElsewhere = new Map<number, string>();
  /** Input events passed on, counted per agent since the recorder's start. */
  private forwarded = new Map<number, number>();
  /** Input from each instance for each agent ('instance:agent'): `next` is the count of the next one to deliver. */
  private inbox = new Map<string, { next: number; pending: Map<number, DesktopInput> }>();
  private waiters = new Set<() => void>();

  constructor(private bus: Bus, readonly instanceId: string, private here: Recorder) {
    bus.subscribe(TOPICS.recordingActive, (note) => {
      if (note.from === instanceId) return;
      if (note.active) {
        this.recordedElsewhere.set(note.agent_id, note.from);
        this.forwarded.set(note.agent_id, 0);
      } else if (this.recordedElsewhere.get(note.agent_id) === note.from) this.recordedElsewhere.delete(note.agent_id);
    });
    bus.subscribe(TOPICS.recordingInput, ({ from, agent_id, event, seq }) => {
      if (from === instanceId) return;
      const key = `${from}:${agent_id}`;
      const box = this.inbox.get(key) ?? { next: 1, pending: new Map() };
      this.inbox.set(key, box);
      box.pending.set(seq, event as DesktopInput); // as the recording instance's gateway published it
      for (let e; (e = box.pending.get(box.next)); box.next++) {
        box.pending.delete(box.next);
        this.here.input(agent_id, e);
      }
      for (const wake of this.waiters) wake();
    });
    bus.subscribe(TOPICS.recordingDropped, ({ from, agent_id, name }) => {
      if (from !== instanceId) this.here.dropped(agent_id, name);
    });
  }

  /** This instance starts (or stops) recording the agent: the others send its input here (or stop). */
  announce(agentId: number, active: boolean): void {
    if (active) for (const key of this.inbox.keys()) if (key.endsWith(`:${agentId}`)) this.inbox.delete(key);
    this.bus.publish(TOPICS.recordingActive, { from: this.instanceId, agent_id: agentId, active });
  }

  /** Passes the input on when another instance records the agent; false when none does. */
  input(agentId: number, event: DesktopInput): boolean {
    if (!this.recordedElsewhere.has(agentId)) return false;
    const seq = (this.forwarded.get(agentId) ?? 0) + 1;
    this.forwarded.set(agentId, seq);
    this.bus.publish(TOPICS.recordingInput, { from: this.instanceId, agent_id: agentId, event, seq });
    return true;
  }

  dropped(agentId: number, name: string): boolean {
    if (!this.recordedElsewhere.has(agentId)) return false;
    this.bus.publish(TOPICS.recordingDropped, { from: this.instanceId, agent_id: agentId, name });
    return true;
  }

  /** The query a stop or audio passed on carries: this instance, and how many events of the agent it sent before. */
  sentSoFar(agentId: number): string {
    return `from=${encodeURIComponent(this.instanceId)}&seq=${this.forwarded.get(agentId) ?? 0}`;
  }

  /** Waits (up to 3 s) until `from`'s first `seq` events for the agent arrived; delivers what came, in order. */
  async receivedUpTo(from: string, agentId: number, seq: number): Promise<void> {
    const key = `${from}:${agentId}`;
    const deadline = Date.now() + WAIT_MS;
    while ((this.inbox.get(key)?.next ?? 1) <= seq && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = () => (this.waiters.delete(wake), clearTimeout(timer), resolve());
        const timer = setTimeout(wake, 100);
        this.waiters.add(wake);
      });
    }
    // One lost on the way: what came after it still counts, in order.
    const box = this.inbox.get(key);
    for (const n of [...(box?.pending.keys() ?? [])].sort((x, y) => x - y)) this.here.input(agentId, box!.pending.get(n)!);
    box?.pending.clear();
  }
}
