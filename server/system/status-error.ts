// An error that says its own answer: an HTTP status, the spec's {detail}, and headers. Any part of the server may
// throw one (the agents' quota, a full disk, the route table's 404s); http/ answers it without knowing who threw
// it, and treats every other error as a 500 it hides.
export type ValidationIssue = { loc: (string | number)[]; msg: string; type?: string };
export type Detail = string | ValidationIssue[];

export class StatusError extends Error {
  readonly status: number;
  readonly detail: Detail;
  readonly headers: Record<string, string>;
  constructor(status: number, detail: Detail, headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : detail.map((d) => d.msg).join('; '));
    this.name = 'StatusError';
    this.status = status;
    this.detail = detail;
    this.headers = headers;
  }
}

/** The error's own answer when it says one (by shape, so an error from another copy of this module counts too). */
export function statusOf(err: unknown): { status: number; detail: Detail; headers: Record<string, string> } | null {
  if (!err || typeof err !== 'object') return null;
  const { status, detail, headers } = err as { status?: unknown; detail?: unknown; headers?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 599 || (typeof detail !== 'string' && !Array.isArray(detail))) return null;
  return { status, detail: detail as Detail, headers: headers && typeof headers === 'object' ? (headers as Record<string, string>) : {} };
}
