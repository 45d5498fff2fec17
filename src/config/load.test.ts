import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { loadConfig } from "./load.js";
import { agentRoots, recallHome } from "../platform/paths.js";

describe("config", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  const withConfig = (text: string) => {
    const t = tempDir();
    cleanup = t.cleanup;
    writeFileSync(path.join(t.dir, "config.json"), text);
    return t.dir;
  };

  it("defaults when there is no config.json", () => {
    const t = tempDir();
    cleanup = t.cleanup;
    expect(loadConfig(t.dir).sources.claude).toBe(true);
  });

  it("names the field and the problem for a wrong type", () => {
    const dir = withConfig(JSON.stringify({ sources: { dyadDatabases: [42] } }));
    expect(() => loadConfig(dir)).toThrow(/sources\.dyadDatabases\[0\]: .*expected string/i);
  });

  it("names an unknown field", () => {
    const dir = withConfig(JSON.stringify({ retention: { rawMaxBytes: 5 } }));
    expect(() => loadConfig(dir)).toThrow(/retention\.rawMaxBytes: unknown field/);
  });

  it("reports invalid JSON as a config error", () => {
    const dir = withConfig("{ nope");
    expect(() => loadConfig(dir)).toThrow(expect.objectContaining({ kind: "Config" }));
  });

  it("defaults historyAnswer to the spec's order and models", () => {
    const t = tempDir();
    cleanup = t.cleanup;
    expect(loadConfig(t.dir).historyAnswer).toEqual({
      preference: ["codex", "claude", "opencode"],
      codexModel: "gpt-6-luna",
      claudeModel: "haiku",
      opencodeModel: null,
    });
    const partial = withConfig(JSON.stringify({ historyAnswer: { preference: ["claude"] } }));
    expect(loadConfig(partial).historyAnswer).toMatchObject({
      preference: ["claude"],
      codexModel: "gpt-6-luna",
    });
  });

  it.each([
    [{ preference: ["codex", "gemini"] }, /historyAnswer\.preference\[1\]: /],
    [{ preference: [] }, /historyAnswer\.preference: /],
    [{ preference: ["claude", "claude"] }, /historyAnswer\.preference: must not name a provider twice/],
    [{ codexModel: "--yolo" }, /historyAnswer\.codexModel: must be a model id/],
    [{ claudeModel: "" }, /historyAnswer\.claudeModel: /],
    [{ opencodeModel: "big-pickle" }, /historyAnswer\.opencodeModel: must be provider\/model/],
    [{ opencodeModel: 7 }, /historyAnswer\.opencodeModel: /],
    [{ fallbackModel: "sonnet" }, /historyAnswer\.fallbackModel: unknown field/],
  ])("names the historyAnswer field at fault: %j", (historyAnswer, pattern) => {
    const dir = withConfig(JSON.stringify({ historyAnswer }));
    expect(() => loadConfig(dir)).toThrow(pattern);
  });

  it("resolves RECALL_HOME and the agents' roots from the environment", () => {
    expect(recallHome({ RECALL_HOME: "/x/y" })).toBe("/x/y");
    expect(recallHome({ HOME: "/h", XDG_DATA_HOME: "/d" })).toBe("/d/recall");
    expect(recallHome({ HOME: "/h" })).toBe("/h/.local/share/recall");
    const roots = agentRoots({
      HOME: "/h",
      CODEX_HOME: "/c",
      CLAUDE_CONFIG_DIR: "/a,/b",
      OPENCODE_DB: "o.db",
    });
    expect(roots.claude).toEqual(["/a", "/b"]);
    expect(roots.codex).toBe("/c");
    expect(roots.opencodeDb).toBe("/h/.local/share/opencode/o.db");
  });
});
