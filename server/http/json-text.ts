// A response body that is already JSON text (e.g. built by the database): sendJson writes it as is.
export class JsonText {
  constructor(readonly text: string) {}
}
