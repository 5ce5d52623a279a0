// Whether an error means the disk (or the user's quota) is full: SQLite's SQLITE_FULL and
// the file system's ENOSPC and EDQUOT, wherever in the error's causes they are. Such a
// failure is temporary and says nothing about the request, so edges answer it with 503
// rather than a generic 500, and the process carries on until space returns.

const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

export function isStorageFull(err: unknown): boolean {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  }
  return false;
}

/** What a client is told: nothing about the path or the error, only that it may retry. */
export const STORAGE_FULL_ANSWER = {
  error: 'the fleet cannot write its state now (the disk is full); nothing was taken, try again later',
  code: 'STORAGE_FULL',
} as const;
/** Seconds a client is asked to wait before it tries again. */
export const STORAGE_FULL_RETRY_AFTER_S = 30;
