/**
 * `recall export --out` cannot destroy anything (issue #30, items 3 and 8): it never overwrites
 * an existing file without --force, never writes inside RECALL_HOME or a source's folders (links
 * followed), and creates its file 0600 whatever the umask.
 */
import { spawnSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "./helpers/cli.js";
import { createTranscriptHome, type TranscriptHome } from "./helpers/transcript-home.js";
import { BASE_TIME, claudeLine } from "./sources-lines.js";

const SESSION = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";

describe("recall export --out", () => {
  let h: TranscriptHome;
  afterEach(() => h?.cleanup());

  const setup = () => {
    h = createTranscriptHome();
    const line = claudeLine({ uuid: "e1", session: SESSION, text: "the export guard note", at: BASE_TIME });
    writeFileSync(path.join(h.claudeDir, `${SESSION}.jsonl`), line);
    expect(h.run("index").status).toBe(0);
    return line;
  };

  it("refuses RECALL_HOME and the sources' folders, links included, and leaves them as they were", () => {
    setup();
    const index = path.join(h.recallHome, "history.db");
    const before = readFileSync(index);
    const link = path.join(h.root, "innocent-looking");
    symlinkSync(h.recallHome, link);
    for (const out of [
      index,
      path.join(h.recallHome, "backups", "s.jsonl"),
      path.join(link, "history.db"),
      path.join(h.claudeDir, "copy.jsonl"),
      path.join(h.home, ".codex", "sessions", "x.jsonl"),
      path.join(h.recallHome, "bridge", "runs", "x.log"),
    ]) {
      for (const force of [[], ["--force"]]) {
        const r = h.run("export", `claude:${SESSION}`, "--out", out, ...force);
        expect(r.status, out).toBe(2);
        expect(r.stderr).toMatch(/^recall: --out: .* is inside .*write the export elsewhere\n$/);
      }
    }
    expect(readFileSync(index).equals(before)).toBe(true);
    expect(existsSync(path.join(h.claudeDir, "copy.jsonl"))).toBe(false);
    expect(JSON.parse(h.run("search", "export guard", "--json").stdout).hits).toHaveLength(1);
  });

  it("overwrites an existing file only with --force, and never a hard link to the index", () => {
    const line = setup();
    const out = path.join(h.root, "out.jsonl");
    writeFileSync(out, "keep me");
    const refused = h.run("export", `claude:${SESSION}`, "--out", out);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(`recall: --out: ${out} already exists; pass --force to overwrite it\n`);
    expect(readFileSync(out, "utf8")).toBe("keep me");
    const forced = h.run("export", `claude:${SESSION}`, "--out", out, "--force");
    expect(forced.status).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(line);
    // Never a silent success: what was written, and where.
    const bytes = Buffer.byteLength(line);
    expect(forced.stdout).toBe(
      `wrote ${bytes.toLocaleString("en-US")} bytes of claude:${SESSION} (1 file) to ${out}\n`,
    );
    const json = h.run("export", `claude:${SESSION}`, "--out", out, "--force", "--json");
    expect(JSON.parse(json.stdout)).toEqual({
      conversation: `claude:${SESSION}`,
      out,
      bytes,
      files: [{ file: path.join(h.claudeDir, `${SESSION}.jsonl`), bytes }],
    });
    const noTarget = h.run("export", `claude:${SESSION}`, "--json");
    expect([noTarget.status, noTarget.stdout]).toEqual([2, ""]);
    expect(noTarget.stderr).toBe(
      "recall: --json needs --list or --out (to stdout the export is the raw bytes)\n",
    );

    const alias = path.join(h.root, "index-alias.db");
    linkSync(path.join(h.recallHome, "history.db"), alias);
    const size = statSync(alias).size;
    const hard = h.run("export", `claude:${SESSION}`, "--out", alias, "--force");
    expect(hard.status).toBe(2);
    expect(hard.stderr).toMatch(/is one of the files in/);
    expect(statSync(alias).size).toBe(size);
  });

  it("creates its file 0600 under umask 000", () => {
    const line = setup();
    const out = path.join(h.root, "fresh", "s.jsonl");
    mkdirSync(path.dirname(out));
    const r = spawnSync(
      "sh",
      ["-c", `umask 000; exec "${process.execPath}" "${CLI}" export claude:${SESSION} --out "${out}"`],
      {
        encoding: "utf8",
        env: h.env,
      },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^wrote .* bytes of claude:.* \(1 file\) to /);
    expect(readFileSync(out, "utf8")).toBe(line);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });
});
