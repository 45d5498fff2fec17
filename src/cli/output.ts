/** Machine output: exactly one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A user-facing error: one line on stderr, never a stack trace. */
export function printError(message: string): void {
  const oneLine = message.replace(/\s*\n\s*/g, " ").trim();
  process.stderr.write(`recall: ${oneLine}\n`);
}
