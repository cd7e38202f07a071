// The Guacamole protocol's instruction codec: `LENGTH.VALUE` elements joined by ',' and ended by ';',
// the first element being the opcode. LENGTH counts Unicode code points (the protocol's rule, and what
// upstream guacamole-common-js 1.5.2+ does). npm guacamole-common-js 1.5.0 counts UTF-16 code units
// instead, so callers keep text outside the BMP out of plain elements (see `bmpOnly`).

export type Instruction = { opcode: string; args: string[] };

/** Guacamole status codes used here (guacamole-common-js Status.Code). */
export const STATUS = {
  SERVER_ERROR: 0x0200,
  UPSTREAM_UNAVAILABLE: 0x0208,
  CLIENT_BAD_REQUEST: 0x0300,
  CLIENT_FORBIDDEN: 0x0303,
};

export class GuacProtocolError extends Error {
  override name = 'GuacProtocolError';
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** Code points in a string (a surrogate pair counts once). */
export function codePointLength(s: string): number {
  let n = s.length;
  // Most text (every base64 blob) has no pair to count: a regex scan is ~50x faster than the loop below.
  if (!HIGH_SURROGATE.test(s)) return n;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** One encoded instruction, e.g. encode('size', 0, 1280, 800) → '4.size,1.0,4.1280,3.800;'. */
export function encode(opcode: string, ...args: (string | number)[]): string {
  let out = element(opcode);
  for (const arg of args) out += ',' + element(String(arg));
  return out + ';';
}

function element(value: string): string {
  return `${codePointLength(value)}.${value}`;
}

/** Replaces characters outside the Basic Multilingual Plane, which the 1.5.0 client miscounts. */
export function bmpOnly(text: string): string {
  return text.replace(/[\u{10000}-\u{10FFFF}]/gu, '\uFFFD').replace(/[\uD800-\uDFFF]/g, '\uFFFD');
}

export type ParserOptions = {
  /** Largest incomplete instruction kept between feeds, in UTF-16 units. @default 65536 */
  maxBuffer?: number;
  /** Most elements in one instruction. @default 64 */
  maxElements?: number;
};

/**
 * Incremental parser: feed() takes text as it arrives (an instruction may span feeds) and returns every
 * instruction completed so far. Malformed input throws GuacProtocolError; the parser is unusable after.
 */
export class GuacParser {
  private buffer = '';
  private elements: string[] = [];
  private failed = false;
  private maxBuffer: number;
  private maxElements: number;

  constructor(options: ParserOptions = {}) {
    this.maxBuffer = options.maxBuffer ?? 65536;
    this.maxElements = options.maxElements ?? 64;
  }

  feed(text: string): Instruction[] {
    if (this.failed) throw new GuacProtocolError('parser already failed');
    this.buffer += text;
    const out: Instruction[] = [];
    let pos = 0;
    try {
      for (;;) {
        const dot = this.buffer.indexOf('.', pos);
        if (dot === -1) {
          const pending = this.buffer.slice(pos);
          if (!/^\d*$/.test(pending)) throw new GuacProtocolError(`bad element length "${pending.slice(0, 12)}"`);
          if (pending.length > 9) throw new GuacProtocolError('element length too long');
          break;
        }
        const digits = this.buffer.slice(pos, dot);
        if (!/^\d{1,9}$/.test(digits)) throw new GuacProtocolError(`bad element length "${digits.slice(0, 12)}"`);
        const length = Number(digits);
        if (length > this.maxBuffer) throw new GuacProtocolError('element too long');
        // Walk `length` code points from the value start.
        let end = dot + 1;
        let count = 0;
        while (count < length && end < this.buffer.length) {
          const c = this.buffer.charCodeAt(end);
          if (c >= 0xd800 && c <= 0xdbff) {
            if (end + 1 >= this.buffer.length) break; // the low half has not arrived yet
            end += 2;
          } else end += 1;
          count++;
        }
        if (count < length || end >= this.buffer.length) break; // wait for the rest and its terminator
        const terminator = this.buffer[end];
        if (terminator !== ',' && terminator !== ';') throw new GuacProtocolError(`expected ',' or ';' after element, got "${terminator}"`);
        this.elements.push(this.buffer.slice(dot + 1, end));
        if (this.elements.length > this.maxElements) throw new GuacProtocolError('too many elements');
        pos = end + 1;
        if (terminator === ';') {
          const [opcode, ...args] = this.elements;
          out.push({ opcode, args });
          this.elements = [];
        }
      }
    } catch (err) {
      this.failed = true;
      throw err;
    }
    this.buffer = this.buffer.slice(pos);
    const held = this.buffer.length + this.elements.reduce((n, e) => n + e.length, 0);
    if (held > this.maxBuffer) {
      this.failed = true;
      throw new GuacProtocolError('instruction too long');
    }
    return out;
  }

  /** True while part of an instruction is still waiting for more text. */
  get pending(): boolean {
    return this.buffer.length > 0 || this.elements.length > 0;
  }
}
