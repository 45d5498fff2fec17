/**
 * Indexing, measured in a process of its own so its peak RSS is the indexer's alone:
 *   node dist/bench/worker-index.js history <home> <recallHome> [no-redaction] [single]
 *   node dist/bench/worker-index.js chats <dbFile> <backupDir>
 * Prints one JSON object (IndexRun, index-run.ts) on stdout.
 */
import { limitHeapGrowth } from "../core/heap.js";
import { runAgainWithMallocSettings, wantsMallocSettings } from "../app/malloc-settings.js";

const [kind, a, b, ...flags] = process.argv.slice(2);
// As `recall index` runs (cli/main.ts), with glibc's malloc settings.
if (kind === "history" && wantsMallocSettings(process.env)) await runAgainWithMallocSettings();
// The history run stands for recall's own process: like the bin (cli/main.ts), it sets the heap
// limits before loading recall, whose loading would grow the young generation for good. The chat
// run stands for a host app, which keeps its own settings.
if (kind === "history") limitHeapGrowth();
const { history, chats } = await import("./index-run.js");
const run =
  kind === "history"
    ? history(a!, b!, !flags.includes("no-redaction"), !flags.includes("single"))
    : chats(a!, b!);
run.then(
  (r) => process.stdout.write(`${JSON.stringify(r)}\n`),
  (e: unknown) => {
    process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
