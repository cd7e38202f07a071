// A WebSocket stand-in for the reconnecting socket's users (the message feed): records instances, opens
// when told, delivers frames pushed by the test (objects as JSON).

type Handler = ((ev: any) => void) | null;

export class FakeSocket {
  static instances: FakeSocket[] = [];
  readyState = 0;
  onopen: Handler = null;
  onmessage: Handler = null;
  onclose: Handler = null;
  onerror: Handler = null;
  closedWith: number | undefined;
  constructor(public url: string) {
    FakeSocket.instances.push(this);
  }
  send() {}
  close(code?: number) {
    this.closedWith = code;
    this.readyState = 3;
  }
  accept() {
    this.readyState = 1;
    this.onopen?.({});
  }
  push(value: unknown) {
    this.onmessage?.({ data: typeof value === 'string' ? value : JSON.stringify(value) });
  }
}
