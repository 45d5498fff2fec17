#!/usr/bin/env node
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { limitHeapGrowth } from "../core/heap.js";
import { requireWithCodeCache } from "./code-cache.js";
import { commandName } from "./command-name.js";

const BUNDLE = fileURLToPath(new URL("../bundle/recall.cjs", import.meta.url));

/**
 * The `recall` bin. Each `recall search` is a new process, and loading tsc's output, about 220
 * modules one file at a time (95 of them zod's), took 150 ms of a cold search's 290 ms; bundled
 * into a few files (`npm run build`, rolldown.config.js) it took 70 ms, and compiled from V8's code
 * cache (code-cache.ts) a cold search of a rare word takes 190 ms against 228. A bundle older than
 * the last compile (a plain `tsc` since) would run old code: then the compiled modules run instead.
 */
function bundleIsCurrent(): boolean {
  const bundled = statSync(BUNDLE, { throwIfNoEntry: false });
  const compiled = statSync(new URL("../.tsbuildinfo", import.meta.url), { throwIfNoEntry: false });
  return bundled !== undefined && (compiled === undefined || bundled.mtimeMs >= compiled.mtimeMs);
}

const command = commandName(process.argv);
// A foreground backfill runs with glibc's malloc settings, read only at a process's start (loaded
// only then: every other command, a cold search first, starts without it).
if (command === "index" || command === "reindex") {
  const malloc = await import("../app/malloc-settings.js");
  if (malloc.wantsMallocSettings(process.env)) await malloc.runAgainWithMallocSettings();
}
const youngGeneration = command === "mcp" ? "grows" : "small";
limitHeapGrowth(youngGeneration);
// A code cache per heap setting: V8 checks the flags a cache was made under.
const codeCache = fileURLToPath(new URL(`../bundle/code-cache/${youngGeneration}/`, import.meta.url));
if (bundleIsCurrent()) requireWithCodeCache(BUNDLE, codeCache);
else await import("./run.js");
