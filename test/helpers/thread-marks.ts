import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * A preload module (NODE_OPTIONS --import, which worker threads inherit) that notes the entry file
 * of every worker thread a process starts, one line each, in the file RECALL_TEST_THREAD_MARKS
 * names. Returns the environment that loads it, given where the marks go.
 */
export function threadMarker(dir: string): (marks: string) => Record<string, string> {
  const preload = path.join(dir, "mark-threads.mjs");
  writeFileSync(
    preload,
    [
      'import { appendFileSync } from "node:fs";',
      'import { isMainThread } from "node:worker_threads";',
      "if (!isMainThread && process.env.RECALL_TEST_THREAD_MARKS)",
      "  appendFileSync(process.env.RECALL_TEST_THREAD_MARKS, `${process.argv[1]}\\n`);",
    ].join("\n"),
  );
  return (marks) => ({
    NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`,
    RECALL_TEST_THREAD_MARKS: marks,
  });
}

/** The thread entries noted in `marks`, in the order the threads started. */
export function threadsMarked(marks: string): string[] {
  return existsSync(marks) ? readFileSync(marks, "utf8").trim().split("\n") : [];
}
