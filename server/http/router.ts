// A tiny method + path router: '/agents/:id' patterns, trailing slashes ignored, 404 vs 405. A path
// without parameters is found in a map (most requests name one: the agents list, the health check);
// a fixed path wins over a pattern that would also match it, whatever the order they were added in.
import { HttpError } from './errors.ts';

export type Params = Record<string, string>;
type Entry<H> = { method: string; pattern: string; parts: string[]; handler: H };
export type Match<H> = { handler: H; params: Params };

export class Router<H> {
  private entries: Entry<H>[] = [];
  private fixed = new Map<string, Entry<H>>();

  add(method: string, pattern: string, handler: H): this {
    const entry = { method: method.toUpperCase(), pattern, parts: split(pattern), handler };
    this.entries.push(entry);
    const key = `${entry.method} ${entry.parts.join('/')}`;
    if (!entry.parts.some((p) => p.startsWith(':')) && !this.fixed.has(key)) this.fixed.set(key, entry);
    return this;
  }

  list(): { method: string; pattern: string; handler: H }[] {
    return this.entries.map(({ method, pattern, handler }) => ({ method, pattern, handler }));
  }

  /** Throws 404 when no pattern matches the path and 405 (with Allow) when only the method is wrong. */
  match(method: string, path: string): Match<H> {
    const segments = split(path);
    const joined = segments.join('/');
    const fixed = this.fixed.get(`${method} ${joined}`) ?? (method === 'HEAD' ? this.fixed.get(`GET ${joined}`) : undefined);
    if (fixed) return { handler: fixed.handler, params: {} };
    const allowed = new Set<string>();
    for (const entry of this.entries) {
      const params = matchParts(entry.parts, segments);
      if (!params) continue;
      if (entry.method === method || (method === 'HEAD' && entry.method === 'GET')) return { handler: entry.handler, params };
      allowed.add(entry.method);
    }
    if (allowed.size) throw new HttpError(405, 'Method not allowed', { Allow: [...allowed].join(', ') });
    throw new HttpError(404, 'Not found');
  }
}

function split(path: string): string[] {
  return path.split('/').filter(Boolean);
}

function matchParts(parts: string[], segments: string[]): Params | null {
  if (parts.length !== segments.length) return null;
  const params: Params = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(segments[i]);
      } catch {
        return null;
      }
    } else if (part !== segments[i]) return null;
  }
  return params;
}
