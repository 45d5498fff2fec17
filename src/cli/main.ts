#!/usr/bin/env node
import { statSync } from "node:fs";
import { limitHeapGrowth } from "../core/heap.js";

/**
 * The `recall` bin. Each `recall search` is a new process, and loading tsc's output, about 220
 * modules one file at a time (95 of them zod's), took 150 ms of a cold search's 290 ms; bundled
 * into a few files (`npm run build`, rolldown.config.js) it takes 70 ms. A bundle older than the
 * last compile (a plain `tsc` since) would run old code: then the compiled modules run instead.
 */
function bundleIsCurrent(): boolean {
  const bundled = statSync(new URL("../bundle/recall.js", import.meta.url), { throwIfNoEntry: false });
  const compiled = statSync(new URL("../.tsbuildinfo", import.meta.url), { throwIfNoEntry: false });
  return bundled !== undefined && (compiled === undefined || bundled.mtimeMs >= compiled.mtimeMs);
}

limitHeapGrowth();
await import(bundleIsCurrent() ? "../bundle/recall.js" : "./run.js");
