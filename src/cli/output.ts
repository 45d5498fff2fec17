/** Machine output: exactly one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A user-facing error: one line on stderr, never a stack trace. */
export function printError(message: string): void {
  const oneLine = message.replace(/\s*\n\s*/g, " ").trim();
  process.stderr.write(`recall: ${oneLine}\n`);
}

/** A byte count for people: "812 B", "4.3 KB", "12.0 MB", "2.41 GB" (binary units). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/** "1 file", "2 files": a count with its noun (the plural given when it is not noun + "s"). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? noun : plural}`;
}
