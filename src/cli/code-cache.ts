import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import path from "node:path";
import { Script } from "node:vm";

/** What this file uses of node:module's internals (the hook v8-compile-cache also uses). */
interface CompilingModule {
  exports: unknown;
}
interface ModuleInternals {
  prototype: { _compile: (this: CompilingModule, content: string, filename: string) => unknown };
  wrap(content: string): string;
}

/**
 * Runs the bundled CLI (CommonJS, rolldown.config.js) with V8's code cache, so that a new process
 * does not parse and compile the same 760 KB of JavaScript again: a cold `recall search` of a rare
 * word took 228 ms at the median as ES modules (1M Zipf index), 190 ms from the cache; `the test
 * build` 286 against 248, as the cache also holds the functions the search compiled as it ran.
 *
 * Each file of the bundle is compiled with the cache written for its exact text (the cache file is
 * named by a digest of it: V8 itself checks only the text's length, its own version and its flags,
 * and rejects a cache that fails those). A file compiled without an accepted cache gets one when the
 * process exits, taken then so that it holds what the command compiled. The cache sits beside the
 * bundle, as trusted as the code it is made from; where that folder cannot be written, each process
 * compiles as Node does. Node 22's module.enableCompileCache does the same for ES modules; recall
 * runs on Node 20, whose only code cache API is vm.Script's, for CommonJS.
 */
export function requireWithCodeCache(entry: string, cacheDir: string): void {
  const bundleDir = path.dirname(entry) + path.sep;
  const internals = Module as unknown as ModuleInternals;
  const compile = internals.prototype._compile;
  const uncached: { script: Script; file: string }[] = [];
  internals.prototype._compile = function (content, filename) {
    if (!filename.startsWith(bundleDir)) return compile.call(this, content, filename);
    const file = path.join(cacheDir, `${path.basename(filename)}.${digest(content)}`);
    const cachedData = readIfPresent(file);
    const script = new Script(internals.wrap(content), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) uncached.push({ script, file });
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown;
    return wrapper.call(
      this.exports,
      this.exports,
      createRequire(filename),
      this,
      filename,
      path.dirname(filename),
    );
  };
  process.once("exit", () => writeCaches(uncached, cacheDir));
  createRequire(entry)(entry);
}

const digest = (text: string) => createHash("sha1").update(text).digest("hex").slice(0, 16);

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Each cache is written whole and renamed into place: processes exiting together race harmlessly. */
function writeCaches(uncached: readonly { script: Script; file: string }[], cacheDir: string): void {
  if (uncached.length === 0) return;
  try {
    mkdirSync(cacheDir, { recursive: true });
    for (const { script, file } of uncached) {
      const partial = `${file}.${process.pid}`;
      writeFileSync(partial, script.createCachedData());
      renameSync(partial, file);
    }
  } catch {
    // A folder this user cannot write (an installation of someone else's): no cache, as before.
  }
}
