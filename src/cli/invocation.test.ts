import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/tmp.js";
import { recallInvocation } from "./invocation.js";

describe("recallInvocation", () => {
  it("says recall only when PATH's recall is this script", () => {
    const t = tempDir();
    try {
      const script = path.join(t.dir, "pkg", "dist", "cli", "main.js");
      mkdirSync(path.dirname(script), { recursive: true });
      writeFileSync(script, "");
      chmodSync(script, 0o755);
      const bin = path.join(t.dir, "bin");
      const other = path.join(t.dir, "other");
      mkdirSync(bin);
      mkdirSync(other);
      // Not on PATH: node and the script, relative to the package folder (where npm start runs).
      const pkg = path.join(t.dir, "pkg");
      expect(recallInvocation(script, { PATH: other }, pkg)).toEqual({
        command: "node dist/cli/main.js",
        onPath: false,
      });
      // From elsewhere, the whole path.
      expect(recallInvocation(script, { PATH: other }, other).command).toBe(`node ${script}`);
      // Another program named recall on PATH is not this one.
      writeFileSync(path.join(other, "recall"), "");
      chmodSync(path.join(other, "recall"), 0o755);
      expect(recallInvocation(script, { PATH: other }, pkg).onPath).toBe(false);
      // npm link's symlink to this script is, unless another recall comes first on PATH.
      symlinkSync(script, path.join(bin, "recall"));
      expect(recallInvocation(script, { PATH: [bin, other].join(path.delimiter) }, pkg)).toEqual({
        command: "recall",
        onPath: true,
      });
      expect(recallInvocation(script, { PATH: [other, bin].join(path.delimiter) }, pkg).onPath).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});
