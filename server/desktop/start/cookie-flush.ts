// The desktop browser's cookies on disk before its desktop is frozen (issue 50: the home is checkpointed at sleep, and
// after a kill -9 that checkpoint is what the next machine restores). Chromium commits its cookie store lazily: a
// change waits up to 30 s, or until 512 changes are pending (kCommitInterval and kCommitAfterBatchSize in
// net/extras/sqlite/sqlite_persistent_cookie_store.cc; Electron documents the same for cookies.flushStore()). The
// DevTools protocol has no command that flushes it (none in browser_protocol.pdl; embedders call the network
// service's CookieManager::FlushCookieStore, which no DevTools command reaches). So the flush is over 512 changes of
// one cookie of the server's own: the count reaches 512 whatever was pending, and that commit holds every change made
// before. It costs a write of the cookie file, so it is skipped when neither the cookies nor that file changed since
// the last flush.
import { createHash } from 'node:crypto';
import { statUntrusted } from '../contain/untrusted-file.ts';
import type { DevtoolsPipe } from './devtools-pipe.ts';

/**
 * Overwrites of the server's cookie: each is two changes (the old one deleted, the new one added), so about 600 in all,
 * which reach Chromium's batch size of 512 from any count pending, and pass it twice only with over 400 pending.
 */
const OVERWRITES = 300;
/** The server's own cookie, on a name that cannot exist (.invalid, RFC 2606). */
const MARK = { name: 'aw-cookie-flush', domain: 'cookie-flush.invalid', path: '/' };
/** How long a commit may take to reach the disk; how long the file must stay unchanged to count as written. */
const WRITTEN_WITHIN_MS = 3000;
const QUIET_MS = 150;
/**
 * A jar this large on disk is not asked for whole: its answer could pass the DevTools pipe's message limit (8 MiB),
 * which closes the pipe; pages may fill a jar to 3300 cookies of 4 KB. Such a jar is flushed at every sleep.
 */
const ASK_JAR_UNDER_BYTES = 1024 * 1024;

type Cookie = { name: string; domain: string; path: string; value: string; expires: number };

export class CookieFlush {
  /** The cookie store's files, as parts of a path below the home (looked at without following a link on the way). */
  private files: string[][];
  /** The cookies and the file as the last flush left them. */
  private last: { cookies: string; files: string } | null = null;

  /** `home`: the agent's home as the server sees it; the browser's profile is its .config/chromium. */
  constructor(private home: string) {
    this.files = ['Cookies', 'Cookies-journal', 'Cookies-wal'].map((name) => ['.config', 'chromium', 'Default', name]);
  }

  /**
   * Resolves once the browser's cookie changes are written (true), or were already (false: nothing to do).
   * Rejects when the browser does not answer or the file is not written within 3 s.
   */
  async flush(browser: DevtoolsPipe): Promise<boolean> {
    const before = this.stamp();
    const small = (statUntrusted(this.home, this.files[0])?.size ?? 0) < ASK_JAR_UNDER_BYTES;
    const now = small ? fingerprint((await browser.send<{ cookies: Cookie[] }>('Storage.getCookies')).cookies) : null;
    if (now && this.last?.cookies === now && this.last.files === before) return false;
    // Short-lived: one a later commit still writes (its delete left pending) expires within a minute.
    const expires = Math.floor(Date.now() / 1000) + 60;
    const marks = Array.from({ length: OVERWRITES }, (_, i) => ({ ...MARK, value: String(i), expires }));
    await browser.send('Storage.setCookies', { cookies: marks });
    // An expired cookie deletes its equal and is not kept: the mark is gone from the browser again.
    await browser.send('Storage.setCookies', { cookies: [{ ...MARK, value: 'gone', expires: 1 }] });
    await this.written(before);
    this.last = now ? { cookies: now, files: this.stamp() } : null;
    return true;
  }

  /** Waits until the file changed from `before`, has no transaction open (empty journal) and stayed so for a moment. */
  private async written(before: string): Promise<void> {
    const deadline = Date.now() + WRITTEN_WITHIN_MS;
    let seen = before;
    let since = Date.now();
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      const now = this.stamp();
      if (now !== seen) [seen, since] = [now, Date.now()];
      else if (now !== before && !this.journalOpen() && Date.now() - since >= QUIET_MS) return;
    }
    throw new Error(`the browser did not write its cookies within ${WRITTEN_WITHIN_MS} ms`);
  }

  private journalOpen(): boolean {
    return (statUntrusted(this.home, this.files[1])?.size ?? 0) > 0;
  }

  private stamp(): string {
    return this.files.map((file) => {
      const s = statUntrusted(this.home, file);
      return s ? `${s.size}@${s.mtimeMs}` : '-';
    }).join(' ');
  }
}

/** What the store must hold: each cookie's identity, value and expiry (the last access is not worth a write). */
function fingerprint(cookies: Cookie[]): string {
  const rows = cookies.filter((c) => c.domain !== MARK.domain).map((c) => [c.domain, c.name, c.path, c.value, c.expires].join('\t')).sort();
  return createHash('sha256').update(rows.join('\n')).digest('hex');
}
