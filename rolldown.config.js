import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "rolldown";

const LIVE = "dist/bundle";
const STAGING = `dist/.bundle-${process.pid}`;
const ENTRY = "recall.cjs";
/** V8's code cache of the bundle's files (cli/code-cache.ts), made for one build's text. */
const CODE_CACHE = path.join(LIVE, "code-cache");
/** The chunks of the bundle in place, kept one build longer. */
const MANIFEST = path.join(LIVE, "chunks.json");

/**
 * Moves the bundle from STAGING into LIVE so that a `recall` starting meanwhile (tests beside a
 * build) never loads part of one bundle and part of another: chunks are named by their content
 * and renamed into place before the entry is. The previous bundle's chunks stay for a process
 * that has just read its entry; older ones are removed.
 */
const publish = {
  name: "publish",
  writeBundle(_options, bundle) {
    try {
      const chunks = Object.keys(bundle).filter((file) => file !== ENTRY);
      const previous = existsSync(MANIFEST) ? JSON.parse(readFileSync(MANIFEST, "utf8")) : [];
      mkdirSync(path.join(LIVE, "chunks"), { recursive: true });
      for (const file of chunks)
        if (!existsSync(path.join(LIVE, file))) renameSync(path.join(STAGING, file), path.join(LIVE, file));
      renameSync(path.join(STAGING, ENTRY), path.join(LIVE, ENTRY));
      writeFileSync(MANIFEST, JSON.stringify(chunks));
      const keep = new Set([...chunks, ...previous]);
      for (const name of readdirSync(path.join(LIVE, "chunks")))
        if (!keep.has(`chunks/${name}`)) rmSync(path.join(LIVE, "chunks", name));
      rmSync(CODE_CACHE, { recursive: true, force: true });
    } finally {
      rmSync(STAGING, { recursive: true, force: true });
    }
  },
};

/**
 * Moves a thread's bundle (one file) into LIVE whole, by a rename, as `publish` does the CLI's
 * entry; each thread's build stages in a folder of its own.
 */
const publishThread = (file) => {
  const staging = `dist/.thread-${path.parse(file).name}-${process.pid}`;
  return {
    staging,
    plugin: {
      name: `publish-${file}`,
      writeBundle() {
        try {
          mkdirSync(LIVE, { recursive: true });
          renameSync(path.join(staging, file), path.join(LIVE, file));
        } finally {
          rmSync(staging, { recursive: true, force: true });
        }
      },
    },
  };
};

/** A worker thread's entry bundled into one file of its own, so the CLI's chunks stay as they were. */
const threadBundle = (name, input) => {
  const { staging, plugin } = publishThread(`${name}.js`);
  return {
    input: { [name]: input },
    platform: "node",
    external: ["better-sqlite3"],
    plugins: [plugin],
    output: {
      dir: staging,
      format: "esm",
      entryFileNames: "[name].js",
      inlineDynamicImports: true,
      keepNames: true,
    },
  };
};

/**
 * The CLI bundled from tsc's output (`npm run build` compiles first), which dist/cli/main.js
 * starts when it is current. The import()s stay (as requires when called), so a command loads
 * only the chunks it needs; import.meta.url becomes the file's own URL. The layout keeps the
 * relative URLs the code reads files by: ../../package.json from the entry (cli/run.ts) and
 * ../../../src/http/assets/ from a chunk (http/routes/assets.ts).
 */
export default defineConfig([
  {
    input: { recall: "dist/cli/run.js" },
    platform: "node",
    // Finds its native addon relative to its own files.
    external: ["better-sqlite3"],
    plugins: [publish],
    output: {
      dir: STAGING,
      // CommonJS: Node 20 has a code cache for scripts (vm.Script), none for ES modules.
      format: "cjs",
      entryFileNames: "[name].cjs",
      chunkFileNames: "chunks/[name]-[hash].cjs",
      // Class and function names (an error's name) stay as written.
      keepNames: true,
    },
  },
  /** The backfill pipeline's thread (indexer/pipeline.ts finds it beside the bundle's files). */
  threadBundle("index-thread", "dist/indexer/index-thread.js"),
  /** The broker's thread: the index's writer and worker (app/broker-process.ts finds it there too). */
  threadBundle("broker-thread", "dist/app/broker-thread.js"),
  /** `recall index`'s second thread for term statistics (app/term-stats-helper.ts). */
  threadBundle("term-stats-thread", "dist/app/term-stats-thread.js"),
]);
