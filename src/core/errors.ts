/**
 * Errors a caller can act on. `kind` is part of recall's contract: tools print
 * `{"error":{"kind","message"}}`, the CLI maps kinds to exit codes, HTTP to statuses.
 */
export const ERROR_KINDS = [
  "Validation",
  "NotFound",
  "Usage",
  "Config",
  "SchemaTooNew",
  "Unavailable",
  "Conflict",
  "Internal",
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export class RecallError extends Error {
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RecallError";
    this.kind = kind;
  }
}

export const validationError = (message: string) => new RecallError("Validation", message);
export const notFound = (message = "not found") => new RecallError("NotFound", message);

export function isRecallError(e: unknown): e is RecallError {
  return e instanceof RecallError;
}
