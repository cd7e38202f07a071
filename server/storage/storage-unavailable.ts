// The store did not answer, or answered with an error of its own (5xx, a timeout, a refused connection): the
// request that needed it gets 503 with {detail}, never a 500, and the caller may try again later.
import { StatusError } from '../system/status-error.ts';

export const STORAGE_UNAVAILABLE_DETAIL = 'File storage is not available right now; try again in a moment';

export class StorageUnavailable extends StatusError {
  constructor(reason: string, cause?: unknown) {
    super(503, STORAGE_UNAVAILABLE_DETAIL, { 'Retry-After': '5' });
    this.name = 'StorageUnavailable';
    this.message = `Storage unavailable: ${reason}`;
    if (cause !== undefined) this.cause = cause;
  }
}
