// Renders a screen the way the signed-in app does (auth provider, title bar) against a fake API,
// for the agents and agent screen tests. Every request, auth included, goes through FakeApi.fetch.
// dom.ts comes first: react-dom decides at load time whether it runs in a DOM (and so handles 'input' events).
import { reset } from '../../setup/dom.ts';
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import type { Me } from '../../../src/lib/api.ts';
import { AuthProvider, useAuth } from '../../../src/lib/auth.tsx';
import { configureHttp, DEFAULTS as HTTP_DEFAULTS } from '../../../src/lib/http.ts';
import { TitleProvider, useTitleValue } from '../../../src/lib/title.tsx';
import { clearResourceCache } from '../../../src/lib/use-resource.ts';

export type Call = { method: string; path: string; search: string; body: unknown };
type Handler = (call: Call) => unknown;

export const json = (body: unknown, status = 200) =>
  new Response(body === null ? null : JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

export type Deferred<T> = { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void };
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

// A JWT-shaped token that expires in 2100, so auth.tsx never asks to renew it.
const TOKEN = `e30.${btoa(JSON.stringify({ exp: 4_102_444_800 }))}.sig`;

export const USER: Me = { id: 2, email: 'user@example.test', role: 'user', name: '', monthly_spend_limit_cents: 0, impersonated_by: null };
export const ADMIN: Me = { ...USER, id: 1, email: 'admin@example.test', role: 'admin' };

/** Routes are 'METHOD /api/path'; a handler returns a Response, or a value sent as 200 JSON. */
export class FakeApi {
  calls: Call[] = [];
  private routes = new Map<string, Handler>();

  constructor(me: Me) {
    this.on('POST /api/auth/token', () => ({ token: TOKEN }));
    this.on('GET /api/users/me', () => me);
  }

  on(route: string, handler: Handler): this {
    this.routes.set(route, handler);
    return this;
  }

  /** Calls to the API proper, without the sign-in traffic. */
  apiCalls(): Call[] {
    return this.calls.filter((c) => !c.path.startsWith('/api/auth/') && c.path !== '/api/users/me');
  }

  fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), 'http://localhost/');
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : (init?.body ?? null);
    const call: Call = { method, path: url.pathname, search: url.search, body };
    this.calls.push(call);
    const handler = this.routes.get(`${method} ${url.pathname}`);
    if (!handler) return json({ detail: 'Not Found' }, 404);
    const result = await handler(call);
    return result instanceof Response ? result : json(result);
  };
}

/** Stands in for the app's sign-in gate and title bar. */
function Harness({ children }: { children: ReactNode }) {
  const auth = useAuth();
  const { title, action } = useTitleValue();
  if (auth.status !== 'signed-in') return <p>signing in</p>;
  return (
    <>
      <header className="title-bar">
        <h1>{title}</h1>
        {action && <div className="title-bar-action">{action}</div>}
      </header>
      <main>{children}</main>
    </>
  );
}

let root: Root | null = null;
const realFetch = globalThis.fetch;
const globals = globalThis as unknown as Record<string, unknown>;
const saved = { alert: globals.alert, confirm: globals.confirm, WebSocket: globals.WebSocket };

export const dialogs = { alerts: [] as string[], confirms: [] as string[], answer: true };

/** A socket that never connects: the conversation panel's message feed stays quiet in these tests. */
class SilentSocket extends EventTarget {
  static CONNECTING = 0; static OPEN = 1; static CLOSING = 2; static CLOSED = 3;
  readyState = 0;
  send() {}
  close() { this.readyState = 3; }
}

export async function renderScreen(api: FakeApi, screen: ReactNode): Promise<void> {
  globalThis.fetch = api.fetch as typeof fetch;
  configureHttp({ ...HTTP_DEFAULTS, storage: null, fetch: api.fetch as typeof fetch, debug: () => {} });
  globals.alert = (message: string) => void dialogs.alerts.push(message);
  globals.confirm = (message: string) => (dialogs.confirms.push(message), dialogs.answer);
  globals.WebSocket = SilentSocket;
  // A browser that signed in before (src/lib/auth.tsx asks for a token only then); the fake API hands one out.
  localStorage.setItem('awSignedIn', '1');
  const el = document.createElement('div');
  document.body.append(el);
  root = createRoot(el);
  await act(async () => root!.render(<AuthProvider><TitleProvider><Harness>{screen}</Harness></TitleProvider></AuthProvider>));
  await settle();
}

/** Lets pending fetches, their re-renders and follow-up effects all land. */
export async function settle(rounds = 8): Promise<void> {
  for (let i = 0; i < rounds; i++) await act(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
}

/** Settles until `condition` holds: a condition wait, never a fixed sleep; fails after `rounds` rounds. */
export async function waitFor(condition: () => boolean, message = 'the condition', rounds = 200): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (condition()) return;
    await settle(1);
  }
  throw new Error(`waitFor: ${message} did not hold`);
}

export async function cleanup(): Promise<void> {
  if (root) await act(async () => root!.unmount());
  root = null;
  clearResourceCache();
  configureHttp(HTTP_DEFAULTS);
  globalThis.fetch = realFetch;
  Object.assign(globals, saved);
  dialogs.alerts = [];
  dialogs.confirms = [];
  dialogs.answer = true;
  reset();
}

// --- queries, by visible text and role as a user finds things

export const text = () => document.body.textContent ?? '';

export function byRole(role: string, name?: string | RegExp): HTMLElement[] {
  const implicit: Record<string, string> = {
    button: 'button:not([role])', complementary: 'aside', region: 'section[aria-label]', textbox: 'textarea, input:not([type])',
  };
  const selector = `[role="${role}"]${implicit[role] ? ', ' + implicit[role] : ''}`;
  return [...document.querySelectorAll<HTMLElement>(selector)].filter((el) => {
    if (name === undefined) return true;
    const label = el.getAttribute('aria-label') ?? el.textContent?.trim() ?? '';
    return typeof name === 'string' ? label === name : name.test(label);
  });
}

export function getRole(role: string, name?: string | RegExp): HTMLElement {
  const found = byRole(role, name);
  if (found.length !== 1) throw new Error(`expected one ${role} named ${String(name)}, found ${found.length}`);
  return found[0];
}

export async function click(el: Element): Promise<void> {
  await act(async () => {
    el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
  });
}

export async function press(el: Element, key: string): Promise<void> {
  await act(async () => {
    el.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  });
}

/** Types into a controlled input the way React listens for it (the native value setter, then 'input'). */
export async function type(el: HTMLInputElement | HTMLTextAreaElement, value: string): Promise<void> {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  await act(async () => {
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}
