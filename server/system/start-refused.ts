// A start the server refuses on purpose (a key that does not fit, a uid range another server holds): main.ts prints
// its one line and exits non-zero, with no stack trace, and nothing is made afresh.
export class StartRefused extends Error {
  override name = 'StartRefused';
}
