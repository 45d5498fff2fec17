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

/** An error's code or class name only, for logs and thread messages: messages can quote paths or text. */
export const errorKind = (error: unknown): string =>
  (error as { code?: string })?.code ?? (error as Error)?.name ?? "unknown";

/** An error as it crosses a process or thread boundary: its message, and its kind when it has one. */
export interface ErrorParts {
  message: string;
  kind?: string;
}

/** What of an error crosses a boundary: a caller's own mistake (NotFound, Validation…) keeps its kind. */
export function errorParts(error: unknown): ErrorParts {
  return { message: (error as Error).message, kind: isRecallError(error) ? error.kind : undefined };
}

/** The error again on the other side: a RecallError when the kind is one of recall's, else a plain one. */
export function errorFromParts(parts: ErrorParts): Error {
  const kind = ERROR_KINDS.find((k) => k === parts.kind);
  return kind ? new RecallError(kind, parts.message) : new Error(parts.message);
}
