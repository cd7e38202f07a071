// A browser's round trip through single sign-on, with fetch and two cookie jars (the server's and the provider's):
// the sign-in button, the provider's login page (and consent page, when it shows one), the callback, and the
// server's answer. Also forged tokens: signed with the provider's key, another key, HS256, or not at all.
import { createSecretKey } from 'node:crypto';
import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { TestProvider } from './fixtures/oidc-provider.ts';

/** Cookies by name for one origin (paths ignored: the tests talk to each server's own paths only). */
export class Jar {
  cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export type RoundTrip = {
  /** Where the server sent the browser at the end: `/?signed_in=1`, `/?sign_in_error=…`. */
  location: string;
  /** The server's cookies (the refresh cookie after a sign-in). */
  jar: Jar;
  /** The callback URL the provider sent the browser to (code and state). */
  callback: string | null;
};

/**
 * Signs `login` in at the provider, starting from the server's button. `abort`: the provider's Cancel instead.
 * `jar`: the server's cookies so far (a flow cookie from an earlier round trip, for replays).
 */
export async function ssoRoundTrip(rp: string, login: string, options: { abort?: boolean; jar?: Jar; op?: Jar } = {}): Promise<RoundTrip> {
  const jar = options.jar ?? new Jar();
  const op = options.op ?? new Jar();
  let res = await fetch(`${rp}/api/auth/oidc/start`, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.take(res);
  let url = new URL(res.headers.get('location') ?? '', rp).href;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(rp)) {
      if (!new URL(url).pathname.startsWith('/api/auth/oidc/callback')) return { location: url.slice(rp.length), jar, callback: null };
      res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.take(res);
      return { location: res.headers.get('location') ?? `(${res.status})`, jar, callback: url };
    }
    res = await fetch(url, { redirect: 'manual', headers: { cookie: op.header() } });
    op.take(res);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location')!, url).href;
      continue;
    }
    const page = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${url}: ${page.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    if (!action || !prompt) throw new Error(`no form at ${url}: ${page.slice(0, 300)}`);
    if (options.abort) {
      url = new URL(`${new URL(action, url).pathname}/abort`, url).href;
      continue;
    }
    const form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any password' } : { prompt });
    res = await fetch(new URL(action, url), { method: 'POST', redirect: 'manual', headers: { cookie: op.header() }, body: form });
    op.take(res);
    url = new URL(res.headers.get('location') ?? '', url).href;
  }
  throw new Error('too many redirects');
}

/** An ID token with these claims: signed with the provider's key, another RSA key (same kid), HS256 with `secret`, or none. */
export async function forgedToken(
  op: TestProvider, claims: Record<string, unknown>, how: 'provider' | 'other-key' | 'none' | 'hs256' = 'provider', secret = '',
): Promise<string> {
  if (how === 'none') {
    const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
  }
  if (how === 'hs256') return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: op.key.kid }).sign(createSecretKey(Buffer.from(secret)));
  const key: CryptoKey = how === 'provider' ? op.key.privateKey : (otherKey ??= (await generateKeyPair('RS256')).privateKey);
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: op.key.kid }).sign(key);
}
let otherKey: CryptoKey | undefined;
