import { readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { LAYERS } from "../eslint.config.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const eslint = new ESLint({ cwd: root });

/**
 * Lints a real file written into src/<folder>/ for the run, with the repository's own config
 * (the one `npm run lint` runs in CI), and returns the layer rule's messages.
 */
async function layerErrors(folder: string, source: string): Promise<string[]> {
  const file = path.join(root, "src", folder, `layer-probe-${process.pid}.ts`);
  writeFileSync(file, source);
  try {
    const [result] = await eslint.lintFiles([file]);
    return (result?.messages ?? []).filter((m) => m.ruleId === "recall/layers").map((m) => m.message);
  } finally {
    rmSync(file, { force: true });
  }
}

describe("the import layers (LAYERS in eslint.config.js)", () => {
  it("fails lint on a surface that reaches past app/ and tools/", async () => {
    const errors = await layerErrors(
      "mcp",
      `import { openDatabase } from "../store/open.js";\nexport const o = openDatabase;\n`,
    );
    expect(errors).toEqual([expect.stringContaining("mcp/ imports only core, app, tools")]);
    expect(errors[0]).toContain("not store/");
  });

  it("fails lint on an import that points up, in every form an import takes", async () => {
    const errors = await layerErrors(
      "store",
      [
        `import { forget } from "../indexer/forget.js";`,
        `export { historyTools } from "../app/tool-set.js";`,
        `export * from "../tools/run.js";`,
        `export const late = () => import("../search/history.js");`,
        `export const f = forget;`,
      ].join("\n"),
    );
    const targets = errors.map((e) => /not (\w+)\/ \(import of /.exec(e)?.[1]);
    expect(targets.sort()).toEqual(["app", "indexer", "search", "tools"]);
  });

  it("fails lint on the wrong-way imports this order removed", async () => {
    expect(await layerErrors("tools", `export { forget } from "../indexer/forget.js";\n`)).toHaveLength(1);
    // config.json's schema derives from the sources registry: sources and projection sit below it.
    expect(
      await layerErrors("sources", `export { ConfigSchema } from "../config/schema.js";\n`),
    ).toHaveLength(1);
    expect(
      await layerErrors("projection", `export { ConfigSchema } from "../config/schema.js";\n`),
    ).toHaveLength(1);
    expect(
      await layerErrors("audit", `export { DyadSource } from "../sources/dyad/source.js";\n`),
    ).toHaveLength(1);
    expect(await layerErrors("core", `export { makeDirs } from "../platform/make-dirs.js";\n`)).toHaveLength(
      1,
    );
  });

  it("passes imports that point down, and a folder's own files", async () => {
    expect(
      await layerErrors(
        "cli",
        `export { openRecall } from "../app/recall.js";\nexport * from "./output.js";\n`,
      ),
    ).toEqual([]);
    expect(await layerErrors("tools", `export { searchHistory } from "../search/history.js";\n`)).toEqual([]);
    expect(
      await layerErrors("indexer", `export { sessionFilter } from "../search/session-aliases.js";\n`),
    ).toEqual([]);
  });

  it("places every folder of src/ in the order", () => {
    const folders = readdirSync(path.join(root, "src"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const placed = new Set(LAYERS.map((l) => l.layer));
    expect(folders.filter((folder) => !placed.has(folder))).toEqual([]);
  });
});
