import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { tempDir } from "./helpers/tmp.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CODE_CACHE = pathToFileURL(path.join(ROOT, "dist", "cli", "code-cache.js")).href;

/** Each cache file's name with its modification time and size: what a rewrite would change. */
function cacheFiles(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const stat = statSync(path.join(dir, name));
    files[name] = `${stat.mtimeMs}/${stat.size}`;
  }
  return files;
}

const node = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });

describe("the bundle's code cache (cli/code-cache.ts)", () => {
  let cleanup: (() => void) | undefined;
  let demo: DemoHome | undefined;
  afterEach(() => {
    cleanup?.();
    demo?.cleanup();
    cleanup = demo = undefined;
  });

  it("is written once per file text, reused while the text stays, and never runs another text's code", () => {
    const t = tempDir("recall-code-cache-");
    cleanup = t.cleanup;
    const bundle = path.join(t.dir, "bundle");
    mkdirSync(path.join(bundle, "chunks"), { recursive: true });
    const entry = path.join(bundle, "entry.cjs");
    const part = path.join(bundle, "chunks", "part.cjs");
    writeFileSync(entry, 'process.stdout.write(String(require("./chunks/part.cjs").answer()));\n');
    writeFileSync(part, "exports.answer = function answer() { return 1; };\n");
    const cacheDir = path.join(t.dir, "cache");
    const runner = path.join(t.dir, "run.mjs");
    writeFileSync(
      runner,
      `import { requireWithCodeCache } from ${JSON.stringify(CODE_CACHE)};\n` +
        "requireWithCodeCache(process.argv[2], process.argv[3]);\n",
    );
    const run = (cache = cacheDir) => {
      const result = node([runner, entry, cache]);
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      return result.stdout;
    };

    expect(run()).toBe("1");
    const first = cacheFiles(cacheDir);
    expect(
      Object.keys(first)
        .sort()
        .map((name) => name.replace(/\.[0-9a-f]{16}$/, "")),
    ).toEqual(["entry.cjs", "part.cjs"]);
    // Accepted: nothing written again.
    expect(run()).toBe("1");
    expect(cacheFiles(cacheDir)).toEqual(first);

    // A text of the same length (all V8 checks itself) runs as written, with a cache of its own.
    writeFileSync(part, "exports.answer = function answer() { return 2; };\n");
    expect(run()).toBe("2");
    const second = cacheFiles(cacheDir);
    expect(Object.keys(second)).toHaveLength(3);

    // A damaged cache is rejected by V8 and written again.
    const partCache = Object.keys(second).find((name) => name.startsWith("part.cjs") && !(name in first))!;
    writeFileSync(path.join(cacheDir, partCache), "not a code cache");
    expect(run()).toBe("2");
    expect(readFileSync(path.join(cacheDir, partCache)).toString()).not.toBe("not a code cache");

    // A folder that cannot be made: the bundle runs without a cache, silently.
    expect(run(path.join(entry, "cache"))).toBe("2");
  });

  it("is reused by the next recall search, which runs under the same V8 flags", async () => {
    demo = await createDemoHome({ messages: 300 });
    expect(runCli(["index", "--json"], demo.env).status).toBe(0);
    // A copy of the built CLI, so that no other test's process writes its cache meanwhile.
    const t = tempDir("recall-code-cache-cli-");
    cleanup = t.cleanup;
    for (const file of [
      "cli/main.js",
      "cli/code-cache.js",
      "cli/command-name.js",
      "core/heap.js",
      "app/malloc-settings.js",
    ])
      cpSync(path.join(ROOT, "dist", file), path.join(t.dir, "dist", file));
    cpSync(path.join(ROOT, "dist", "bundle"), path.join(t.dir, "dist", "bundle"), {
      recursive: true,
      filter: (source) => !source.includes(`${path.sep}code-cache`),
    });
    cpSync(path.join(ROOT, "package.json"), path.join(t.dir, "package.json"));
    symlinkSync(path.join(ROOT, "node_modules"), path.join(t.dir, "node_modules"));
    const search = () => {
      const result = node(
        [path.join(t.dir, "dist", "cli", "main.js"), "search", "--json", "--", "retry"],
        demo!.env,
      );
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      return JSON.parse(result.stdout) as { hits: unknown[] };
    };
    const cacheDir = path.join(t.dir, "dist", "bundle", "code-cache", "small");
    const first = search();
    const written = cacheFiles(cacheDir);
    expect(Object.keys(written).some((name) => name.startsWith("recall.cjs."))).toBe(true);
    expect(Object.keys(written).some((name) => name.startsWith("search-history-"))).toBe(true);
    expect(search()).toEqual(first);
    expect(cacheFiles(cacheDir)).toEqual(written);
  });
});
