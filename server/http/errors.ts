// HttpError carries a status and the spec's {detail}; sendError writes any error that says its status
// (system/status-error.ts), the database's and the disk's raw errors as theirs, and hides everything else.
import type { ServerResponse } from 'node:http';
import { databaseCannotWrite, databaseUnavailable } from '../db/unavailable.ts';
import { isOutOfSpace, OUT_OF_SPACE_DETAIL } from '../system/out-of-space.ts';
import { statusOf, StatusError, type Detail } from '../system/status-error.ts';
import { writeText } from './compress.ts';
import { JsonText } from './json-text.ts';

export type { Detail, ValidationIssue } from '../system/status-error.ts';

/** The route table's own refusals (404, 401, 422 …): a StatusError by another name. */
export class HttpError extends StatusError {
  constructor(status: number, detail: Detail, headers: Record<string, string> = {}) {
    super(status, detail, headers);
    this.name = 'HttpError';
  }
}

/** 422 with a list of {loc, msg}, the shape validation errors take everywhere. */
export function invalid(field: string, msg: string, where: 'body' | 'query' | 'path' = 'body'): HttpError {
  return new HttpError(422, [{ loc: [where, field], msg, type: 'value_error' }]);
}

export const notFound = (what = 'Not found') => new HttpError(404, what);
export const forbidden = (what = 'Forbidden') => new HttpError(403, what);

/** The JSON text of a handler's answer (JsonText is already JSON, e.g. written by the database). */
export function jsonText(body: unknown): string {
  return body === undefined ? '' : body instanceof JsonText ? body.text : JSON.stringify(body);
}

/** Writes a JSON answer, compressed when it pays (see compress.ts). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  sendJsonText(res, status, jsonText(body), headers);
}

/** `of`: the JsonText the text came from, so that an answer served again is compressed once. */
export function sendJsonText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}, of?: object): void {
  writeText(res, status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers }, text, of);
}

/** Writes any thrown value as {detail}; unknown errors become a logged 500 without internals. */
export function sendError(res: ServerResponse, err: unknown, log: (msg: string) => void = console.error): void {
  const own = statusOf(err);
  if (own) return sendJson(res, own.status, { detail: own.detail }, own.headers);
  if (databaseUnavailable(err)) {
    log(`database unavailable: ${(err as Error).message}`);
    return sendJson(res, 503, { detail: 'The database is unavailable. Try again shortly.' }, { 'Retry-After': '2' });
  }
  const cannotWrite = databaseCannotWrite(err);
  if (cannotWrite) {
    log(`database cannot write: ${(err as Error).message}`);
    return sendJson(res, 503, { detail: cannotWrite }, { 'Retry-After': '30' });
  }
  // A write path that did not turn a full disk into its own answer still gets the right one.
  if (isOutOfSpace(err)) {
    log(`out of disk space: ${(err as Error).message}`);
    return sendJson(res, 507, { detail: OUT_OF_SPACE_DETAIL });
  }
  log(`unhandled error: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  sendJson(res, 500, { detail: 'Internal server error' });
}
