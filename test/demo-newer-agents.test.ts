/**
 * The demo corpus writes Cline, Kilo Code and Continue sessions in their own formats: the same
 * seed gives the same files, the rest of the corpus is what it was without them, and each agent's
 * sessions are indexed and found by the agent filter.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateDemoCorpus } from "../src/demo/index.js";
import { filesUnder, searchTool } from "./helpers/real-more.js";
import { tempDir } from "./helpers/tmp.js";
import { createHarness, type Harness } from "./sources-harness.js";

/** Each file's hash, its corpus folder written as "~" (no file may depend on where it is). */
const digest = (root: string, keep: (f: string) => boolean) =>
  filesUnder(root)
    .filter(keep)
    .map((f) => {
      const bytes = readFileSync(f);
      const text = f.endsWith(".json") ? Buffer.from(bytes.toString("utf8").split(root).join("~")) : bytes;
      return `${path.relative(root, f)} ${createHash("sha256").update(text).digest("hex")}`;
    });
const newer = (f: string) => /\/\.(cline|continue)\//.test(f);
const older = (f: string) =>
  !newer(f) && !/\/\.local\/share\/kilo\//.test(f) && !f.endsWith("demo-manifest.json");

describe("the demo corpus's newer agents", () => {
  let h: Harness | null = null;
  const dirs: (() => void)[] = [];
  afterEach(() => {
    h?.close();
    h = null;
    for (const d of dirs.splice(0)) d();
  });
  const corpus = async (newerAgents?: boolean) => {
    const t = tempDir("recall-demo-newer-");
    dirs.push(t.cleanup);
    const root = path.join(t.dir, "home");
    const manifest = await generateDemoCorpus({
      root,
      seed: 3,
      messages: 200,
      ...(newerAgents === false ? { newerAgents } : {}),
    });
    return { root, manifest };
  };

  it("are deterministic and leave the rest of the corpus as it was", async () => {
    const a = await corpus();
    const b = await corpus();
    const without = await corpus(false);
    expect(digest(a.root, newer)).toEqual(digest(b.root, newer));
    expect(digest(a.root, newer).length).toBeGreaterThan(0);
    expect(digest(a.root, older)).toEqual(digest(without.root, older));
    expect(without.manifest.newerAgents).toBeUndefined();
    expect(a.manifest.newerAgents?.counts).toEqual({
      cline: { sessions: 4, messages: 24, files: 8 },
      kilo: { sessions: 4, messages: 12, files: 1 },
      continue: { sessions: 4, messages: 18, files: 5 },
    });
  });

  it("are indexed and found by the agent filter", async () => {
    const { root, manifest } = await corpus();
    h = await createHarness({ home: root });
    h.index();
    for (const agent of ["cline", "kilo", "continue"] as const) {
      const rows = h.store.db
        .prepare("SELECT count(*) AS n FROM recall_conversations WHERE agent = ?")
        .get(agent) as { n: number };
      expect(rows.n, agent).toBe(manifest.newerAgents!.counts[agent].sessions);
      const word = /\w{5,}/.exec(
        (
          h.store.db
            .prepare(
              "SELECT text FROM recall_records r JOIN recall_conversations c ON c.id = r.conversation WHERE c.agent = ? AND r.role = 'user' LIMIT 1",
            )
            .get(agent) as { text: string }
        ).text,
      )![0];
      const found = await searchTool(h, word, { agent });
      expect(found.hits.length, agent).toBeGreaterThan(0);
      expect(found.hits.every((x) => x.agent === agent)).toBe(true);
    }
  });
});
