import type { ErrorKind } from "../core/errors.js";

/** 0 ok, 2 usage, 3 a tool's own error (NotFound, Validation), 1 anything else. */
export const EXIT = { ok: 0, failure: 1, usage: 2, toolError: 3 } as const;

export function exitCodeFor(kind: ErrorKind): number {
  switch (kind) {
    case "Usage":
      return EXIT.usage;
    case "Validation":
    case "NotFound":
      return EXIT.toolError;
    default:
      return EXIT.failure;
  }
}
