import { HttpError } from "./respond.js";

/** One percent-encoded path segment (a hit or conversation id); bad encoding is a 400. */
export function decodeSegment(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, `${what}: malformed percent-encoding`);
  }
}
