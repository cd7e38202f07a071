/** Anything wrong with the RFB conversation: the server refused us, or sent what the protocol does not allow. */
export class RfbError extends Error {
  override name = 'RfbError';
}
