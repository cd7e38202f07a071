// The service worker's globals, as far as sw.ts uses them. TypeScript's "WebWorker" lib cannot sit beside the "DOM" lib
// the app is checked with (they declare the same names differently), so the few shapes the worker needs are here.
// See: https://github.com/microsoft/TypeScript/issues/14877

export type ExtendableEvent = Event & { waitUntil(promise: Promise<unknown>): void };

export type FetchEvent = ExtendableEvent & {
  request: Request;
  /** The navigation's response, asked for while the worker started (navigation preload); undefined when off. */
  preloadResponse: Promise<Response | undefined>;
  respondWith(response: Response | Promise<Response>): void;
};

export type PushEvent = ExtendableEvent & { data: { json(): unknown; text(): string } | null };

export type NotificationEvent = ExtendableEvent & { notification: Notification; action: string };

export type WindowClient = {
  url: string;
  focused: boolean;
  focus(): Promise<WindowClient>;
  postMessage(message: unknown): void;
};

export type WorkerScope = {
  location: Location;
  caches: CacheStorage;
  registration: ServiceWorkerRegistration;
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<WindowClient[]>;
    openWindow(url: string): Promise<WindowClient | null>;
    claim(): Promise<void>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
};
