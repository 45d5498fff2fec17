import { describe, expect, it } from "vitest";
import { coverageNote } from "./search.js";

const entry = (source: string, state: "ready" | "stale" | "indexing" | "incomplete", held = true) => ({
  source,
  state,
  indexedThrough: held ? 1_700_000_000_000 : null,
  backlog: state === "indexing" ? 4 : 0,
  ...(state === "incomplete" ? { unreadable: 2 } : {}),
});

describe("coverageNote", () => {
  it("says nothing when every source is ready, and names an empty index", () => {
    expect(coverageNote({ state: "ready", sources: 3, indexedThrough: 1 })).toBeNull();
    expect(coverageNote([])).toBe("note: nothing indexed yet; run `recall index`");
  });

  it("names only stale sources that hold something, in one clause", () => {
    const note = coverageNote([
      entry("claude", "stale"),
      entry("codex", "stale"),
      entry("gemini-cli", "stale", false),
      entry("cline", "stale", false),
    ]);
    expect(note).toBe(
      "note: claude, codex not updated lately; run `recall index` or keep `recall mcp` running",
    );
    expect(coverageNote([entry("claude", "ready"), entry("pi", "stale", false)])).toBeNull();
  });

  it("names a source still indexing or missing files beside the stale ones", () => {
    expect(
      coverageNote([entry("claude", "indexing"), entry("codex", "incomplete"), entry("opencode", "stale")]),
    ).toBe(
      "note: claude still indexing (4 waiting); codex cannot read 2 files or folders (see `recall status`); " +
        "opencode not updated lately; run `recall index` or keep `recall mcp` running",
    );
  });
});
