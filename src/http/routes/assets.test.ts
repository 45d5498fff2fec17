import { describe, expect, it } from "vitest";
import { withAgents } from "./assets.js";

const PAGE = `<select id="f-agent" name="agent" data-names="{}">
  <option value="">any</option>
  <!-- agent options: filled here -->
</select>`;

describe("the dashboard page's agents", () => {
  it("lists every agent filter value by display name, and names sources for badges and coverage", () => {
    const html = withAgents(PAGE);
    const options = [...html.matchAll(/<option value="([^"]*)">([^<]*)<\/option>/g)].map((m) => [m[1], m[2]]);
    expect(options).toEqual([
      ["", "any"],
      ["claude", "Claude Code"],
      ["codex", "Codex"],
      ["opencode", "opencode"],
      ["gemini", "Gemini CLI"],
      ["qwen", "Qwen Code"],
      ["copilot", "GitHub Copilot CLI"],
      ["pi", "pi"],
      ["cline", "Cline"],
      ["kilo", "Kilo Code"],
      ["continue", "Continue"],
      ["other", "other"],
    ]);
    const names = JSON.parse(/data-names="([^"]*)"/.exec(html)![1]!.replace(/&quot;/g, '"')) as Record<
      string,
      string
    >;
    expect(names).toMatchObject({ "claude-code": "Claude Code", kilo: "Kilo Code", continue: "Continue" });
  });
});
