// Text taken from a mail made storable: PostgreSQL's text refuses NUL (a message with one would get
// 451 forever), and control characters have no business in a header, a subject or a file name.
// Tabs and line breaks survive only in bodies. File names get their final cut in files/storage.ts.

// C0 controls but tab and line feed, DEL, C1 controls.
const BODY_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const LINE_CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A body: CRLF → LF, other controls dropped, lone surrogates replaced (they cannot be encoded). */
export function cleanText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(BODY_CONTROLS, '').replace(LONE_SURROGATE, '\ufffd');
}

/** A header value (subject, address, Message-ID): one line, controls become one space. */
export function cleanLine(text: string): string {
  return text.replace(LINE_CONTROLS, ' ').replace(/ {2,}/g, ' ').trim().replace(LONE_SURROGATE, '\ufffd');
}

/** An attachment's name: one line, controls stripped as in every stored name (files/storage.ts), never empty. */
export function cleanFileName(name: string, fallback: string): string {
  return cleanLine(name.replace(LINE_CONTROLS, '')).replace(/^[\s.]+$/, '') || fallback;
}
