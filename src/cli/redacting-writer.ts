import type { Redaction } from "../app/redaction.js";

const NEWLINE = 0x0a;

/**
 * `recall export --redact`: the exported bytes line by line through the same detectors the
 * index uses (a JSONL record is one line, and a secret never spans two: a key block's line
 * breaks are `\n` escapes inside its JSON string). Lines are decoded as UTF-8, so the copy is
 * not byte-exact — that is what plain `recall export` is for. A line is held until its end, so
 * memory grows with the longest line, never with the file.
 */
export function redactingWriter(
  redaction: Redaction,
  write: (bytes: Buffer) => void,
): { write: (bytes: Buffer) => void; end: () => void } {
  let pending: Buffer[] = [];
  const flush = (line: Buffer) => {
    const text = line.toString("utf8");
    const redacted = redaction.redact(text);
    write(redacted === text ? line : Buffer.from(redacted, "utf8"));
  };
  return {
    write(bytes) {
      let start = 0;
      for (let eol = bytes.indexOf(NEWLINE); eol >= 0; eol = bytes.indexOf(NEWLINE, start)) {
        const piece = bytes.subarray(start, eol + 1);
        flush(pending.length > 0 ? Buffer.concat([...pending, piece]) : piece);
        pending = [];
        start = eol + 1;
      }
      if (start < bytes.length) pending.push(Buffer.from(bytes.subarray(start)));
    },
    end() {
      if (pending.length > 0) flush(Buffer.concat(pending));
      pending = [];
    },
  };
}
