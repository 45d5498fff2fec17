import { describe, expect, it } from "vitest";
import type { RouteRequest } from "../route.js";
import { assetRoutes } from "./assets.js";

describe("the dashboard page", () => {
  it("offers every agent of the source registry by its display name in the agent filter", async () => {
    const page = assetRoutes.find((r) => r.pattern.test("/"))!;
    const answer = await page.handle({} as RouteRequest);
    const html = "body" in answer ? answer.body.toString() : "";
    const select = /<select id="f-agent"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? "";
    const options = [...select.matchAll(/<option value="([^"]*)">([^<]*)<\/option>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(options).toEqual([
      ["", "any"],
      ["claude", "Claude Code"],
      ["codex", "Codex"],
      ["opencode", "opencode"],
      ["copilot", "GitHub Copilot CLI"],
      ["pi", "pi"],
      ["other", "other"],
    ]);
  });
});
