/**
 * Every agent the index can hold has its own colour in the dashboard's chart, legend and badges
 * (the page's CSP allows no inline style, so colours come from dashboard.css by agent class).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AgentName } from "../src/sources/registry.js";

const css = readFileSync(new URL("../src/http/assets/dashboard.css", import.meta.url), "utf8");

describe("dashboard agent colours", () => {
  it("gives each agent a rule and a colour no other agent has", () => {
    const agents = [...AgentName.options.filter((a) => a !== "other"), "dyad"];
    const colours = new Map<string, string>();
    for (const agent of agents) {
      expect(css, agent).toContain(`.agent-${agent} {\n  --agent-colour: var(--${agent});\n}`);
      const colour = css.match(new RegExp(`--${agent}: (#[0-9a-f]{6});`))?.[1];
      expect(colour, agent).toBeDefined();
      colours.set(agent, colour!);
    }
    expect(new Set(colours.values()).size, JSON.stringify([...colours])).toBe(agents.length);
  });
});
