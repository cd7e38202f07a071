// Concurrent reads of one kind answered by one query. While a query is out, the keys asked for
// meanwhile wait and go together in the next one: under load the database runs one query per
// batch instead of one per request. When nothing is out, a batch starts after the requests that
// arrived in the same event-loop turn have asked too (setImmediate: microseconds, and needed for
// PGlite, whose queries run on this thread). A key is never answered by a query that started
// before it was asked, so a read still sees every write committed before it began.

/** `load` gets distinct keys and answers each (a missing key answers undefined). */
export function batched<K, V>(load: (keys: K[]) => Promise<Map<K, V>>, maxBatch = 200): (key: K) => Promise<V | undefined> {
  type Waiter = { resolve: (value: V | undefined) => void; reject: (err: unknown) => void };
  const waiting = new Map<K, Waiter[]>();
  let running = false;

  async function drain(): Promise<void> {
    while (waiting.size) {
      const batch = new Map([...waiting].slice(0, maxBatch));
      for (const key of batch.keys()) waiting.delete(key);
      try {
        const answers = await load([...batch.keys()]);
        for (const [key, waiters] of batch) for (const w of waiters) w.resolve(answers.get(key));
      } catch (err) {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      }
    }
    running = false;
  }

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      const waiters = waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
      if (!running) {
        running = true;
        setImmediate(() => void drain());
      }
    });
}
