/**
 * Browsing the dashboard in real Chromium, against a real `recall serve` over the demo corpus:
 * the landing page's recent conversations (paged, filtered by project and agent), the projects
 * view and the activity chart, results grouped by conversation, markdown and tool output in a
 * conversation, sub-agent links, the markdown export, dark mode, the consulted view's pages and
 * the keyboard. Screenshots go to test-output/; the landing page's is also README's
 * docs/dashboard.png, so the README shows the page as it is.
 */
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserPresent as present,
  browserRequired as required,
  CHROMIUM,
  loginPage,
  openBrowser,
  OUTPUT,
  writeClaudeSession,
} from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { connectMcp } from "./helpers/mcp.js";
import { startServe, type ServeProcess } from "./helpers/http.js";

/* Browser globals the callbacks below use (the project's tsconfig has no DOM library). */
declare const document: {
  getElementById(id: string): { textContent: string | null } | null;
  activeElement: { className: string; textContent: string | null } | null;
  body: unknown;
  querySelectorAll(selector: string): { length: number };
};
declare const window: { __recallXss?: number };
declare function getComputedStyle(element: unknown): { backgroundColor: string };

const README_SHOT = fileURLToPath(new URL("../docs/dashboard.png", import.meta.url));

/** Markdown as an agent writes it, with a hostile link and image markdown must not make live. */
const MD_TOKEN = "marigoldvortex";
const MD_SESSION = "9b3d6c1a-0000-4000-8000-00000000cafe";
const MD_ANSWER = [
  `${MD_TOKEN} summary of the migration:`,
  "",
  "- **first** step done",
  "- `inline code` kept",
  "",
  "```sh",
  "npm test",
  "```",
  "",
  "[bad link](javascript:window.__recallXss=3) and ![pic](http://127.0.0.1:9/x.png)",
  "",
  "PostgreSQL ran migration 0042_enable_rls.sql and <script>window.__recallXss = 4</script> stayed text.",
].join("\n");

interface Recent {
  conversations: { id: string; agent: string; project: string | null; subAgents: number }[];
  more: boolean;
}

async function api<T>(page: Page, url: string): Promise<T> {
  return (await page.evaluate(async (u) => (await fetch(u)).json(), url)) as T;
}

/** Whether a colour is dark (relative luminance below a half). */
function isDark(rgb: string): boolean {
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b! < 128;
}

describe.skipIf(!present && !required)("browsing the dashboard in Chromium", () => {
  let demo: DemoHome;
  let serve: ServeProcess;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    expect(present, `${CHROMIUM} is missing: install the Debian packages chromium and chromium-driver`).toBe(
      true,
    );
    // With the showcase, as `npm start` writes it: README's screenshot shows what a first run shows.
    demo = await createDemoHome({ seed: 53, messages: 600, showcase: true });
    writeClaudeSession(
      demo.manifest.paths.claudeConfigDir,
      "/home/demo/code/markdown-notes",
      MD_SESSION,
      `render the ${MD_TOKEN} notes`,
      MD_ANSWER,
    );
    const indexed = runCli(["index"], demo.env);
    expect(indexed.status, indexed.stderr).toBe(0);
    serve = await startServe(demo.env);
    browser = await openBrowser();
    page = await loginPage(browser.context, serve, requested);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: "light" });
    mkdirSync(OUTPUT, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    demo?.cleanup();
  });

  it("lands on recent conversations with titles, agents, projects and sizes, paged; saves README's screenshot", async () => {
    await page.goto(`${serve.origin}/`);
    await page.waitForSelector(".conv");
    const all = await api<Recent>(page, "/api/recent?limit=100");
    expect(all.conversations.length).toBeGreaterThan(20);
    const ids = () => page.locator(".conv").evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
    expect(await ids()).toEqual(all.conversations.slice(0, 20).map((c) => c.id));
    const firstPage = await page.locator(".conv .conv-label").allTextContents();
    // Titled conversations show their title, the rest their first prompt: never a bare id.
    for (const text of firstPage) expect(text).not.toMatch(/^(claude|codex|opencode):/);
    expect(await page.locator(".conv .size").first().textContent()).toMatch(/^\d+ records?$/);
    expect(await page.locator("#activity svg rect.bar").count()).toBeGreaterThan(0);
    expect(await page.locator("#recent-prev").isVisible()).toBe(false);
    // README's picture shows the page at rest, not the broker's first scan after `recall serve`.
    await page.waitForFunction(
      () => document.getElementById("index-state")?.textContent === "Index up to date",
      null,
      { timeout: 60_000 },
    );
    await page.screenshot({ path: path.join(OUTPUT, "dashboard-home.png") });
    copyFileSync(path.join(OUTPUT, "dashboard-home.png"), README_SHOT);

    await page.click("#recent-next");
    await page.waitForURL(/offset=20/);
    await page.waitForFunction(() => document.querySelectorAll("#recent-prev:not([hidden])").length === 1);
    expect(await ids()).toEqual(all.conversations.slice(20, 40).map((c) => c.id));
    expect(await page.locator("#recent-next").isVisible()).toBe(all.conversations.length > 40);
    await page.click("#recent-prev");
    await page.waitForFunction(() => document.querySelectorAll("#recent-prev:not([hidden])").length === 0);
    expect(await ids()).toEqual(all.conversations.slice(0, 20).map((c) => c.id));
  });

  it("filters recent conversations by agent and by project, and the projects view opens one", async () => {
    await page.goto(`${serve.origin}/`);
    await page.waitForSelector(".conv");
    await page.selectOption("#recent-agent", "codex");
    await page.waitForURL(/agent=codex/);
    await page.waitForFunction(() => document.querySelectorAll(".conv .badge.agent-claude").length === 0);
    const agents = await page.locator(".conv .conv-title .badge").allTextContents();
    expect(agents.length).toBeGreaterThan(0);
    expect(new Set(agents)).toEqual(new Set(["codex"]));

    await page.click('.tab[data-view="projects"]');
    const row = page.locator("#project-rows tr", { hasText: "/home/demo/code/markdown-notes" });
    await row.waitFor();
    expect(await row.locator("td").nth(1).textContent()).toBe("1");
    await row.locator(".project-open").click();
    await page.waitForURL(/project=/);
    await page.waitForFunction(() => document.querySelectorAll(".conv").length === 1);
    expect(await page.locator(".conv .project").allTextContents()).toEqual([
      "/home/demo/code/markdown-notes",
    ]);
    expect(await page.locator(".conv .conv-label").textContent()).toBe(`render the ${MD_TOKEN} notes`);
  });

  it("groups results by conversation and opens a grouped hit in its conversation at the hit", async () => {
    await page.goto(`${serve.origin}/?q=session&limit=50`);
    await page.waitForSelector(".group");
    const groups = await page
      .locator(".group")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-conversation")));
    expect(new Set(groups).size).toBe(groups.length);
    const out = await api<{ hits: { id: string; conversation: string | null }[] }>(
      page,
      "/api/search?q=session&limit=50",
    );
    expect(groups.length).toBe(new Set(out.hits.map((h) => h.conversation ?? h.id)).size);
    expect(groups.length).toBeLessThan(out.hits.length);
    // A conversation with several hits: its second hit opens the conversation at that hit.
    const group = page
      .locator(".group")
      .filter({ has: page.locator(".hit:nth-child(2)") })
      .first();
    const hitId = await group.locator(".hit").nth(1).locator(".hit-id").textContent();
    const conversation = await group.getAttribute("data-conversation");
    expect(out.hits.filter((h) => h.conversation === conversation).length).toBeGreaterThan(1);
    await group.locator(".hit-open").nth(1).click();
    await page.waitForSelector(".record.focus");
    expect(await page.locator(".record.focus").getAttribute("data-id")).toBe(hitId);
    expect(await page.locator("#conversation-title").textContent()).toBe(conversation);
    await expect.poll(() => page.locator("#conversation-name").textContent()).not.toBe("");
    await page.screenshot({ path: path.join(OUTPUT, "dashboard-conversation.png") });
  });

  it("renders markdown, keeps hostile markup as text, and marks whole words only", async () => {
    await page.goto(`${serve.origin}/?${new URLSearchParams({ q: "0042_enable_rls.sql" })}`);
    await page.waitForSelector(".hit");
    await page.locator(".hit-open", { hasText: "PostgreSQL" }).first().click();
    await page.waitForSelector(".record.focus");
    const focus = page.locator(".record.focus .record-text");
    expect(await focus.locator("li strong").textContent()).toBe("first");
    expect(await focus.locator("li code").textContent()).toBe("inline code");
    expect(await focus.locator("pre code").textContent()).toBe("npm test\n");
    expect(await focus.textContent()).toContain("<script>window.__recallXss = 4</script>");
    expect(await page.locator("main script, main img").count()).toBe(0);
    const hrefs = await focus.locator("a").evaluateAll((els) => els.map((e) => e.getAttribute("href")));
    for (const href of hrefs) expect(href).toMatch(/^https?:/);
    // "sql" is a word of the query: marked in "0042_enable_rls.sql", not at the end of "PostgreSQL".
    const marks = await focus.locator("mark").allTextContents();
    expect(marks.map((m) => m.toLowerCase())).toEqual(["0042", "enable", "rls", "sql"]);
    expect(await focus.textContent()).toContain("PostgreSQL ran");
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => window.__recallXss)).toBeUndefined();
  });

  it("shows tool output as collapsible blocks, and links a sub-agent with its parent", async () => {
    const recent = await api<Recent>(page, "/api/recent?agent=claude&limit=100");
    const parent = recent.conversations.find((c) => c.subAgents > 0)!;
    expect(parent, "a Claude conversation with a sub-agent").toBeDefined();
    await page.goto(`${serve.origin}/?conversation=${encodeURIComponent(parent.id)}`);
    await page.waitForSelector(".record");
    let block = page.locator("details.tool-block").first();
    while ((await block.count()) === 0 && (await page.locator("#load-newer").isVisible())) {
      await page.click("#load-newer");
      await page.waitForTimeout(200);
      block = page.locator("details.tool-block").first();
    }
    expect(await block.count(), "a tool result with a preview").toBe(1);
    expect(await block.getAttribute("open")).toBeNull();
    expect(await block.locator(".tool-preview").isVisible()).toBe(false);
    expect(await block.locator("summary .tool-head").textContent()).toMatch(/^\[(result|error|tool)/);
    await block.locator("summary").click();
    expect(await block.locator(".tool-preview").isVisible()).toBe(true);
    await block.locator("summary").click();
    expect(await block.locator(".tool-preview").isVisible()).toBe(false);

    await page.locator("#subagents-summary").click();
    const child = page.locator("#subagent-list .subagent-link").first();
    await child.click();
    await page.waitForSelector("#conversation-parent:not([hidden])");
    const childId = await page.locator("#conversation-title").textContent();
    expect(childId).toMatch(new RegExp(`^${parent.id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/`));
    await page.locator("#conversation-parent .subagent-link").click();
    await page.waitForFunction(
      () => document.querySelectorAll("#conversation-subagents:not([hidden])").length === 1,
    );
    expect(await page.locator("#conversation-title").textContent()).toBe(parent.id);
  });

  it("exports a conversation as markdown", async () => {
    const id = `claude:${MD_SESSION}`;
    await page.goto(`${serve.origin}/?conversation=${encodeURIComponent(id)}`);
    await page.waitForSelector("#export-md:not([hidden])");
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-md")]);
    expect(download.suggestedFilename()).toBe(`recall-claude-${MD_SESSION}.md`);
    const text = readFileSync(await download.path(), "utf8");
    expect(text.startsWith(`# render the ${MD_TOKEN} notes\n`)).toBe(true);
    expect(text).toContain(`- Conversation: \`${id}\``);
    expect(text).toContain("## User · 2026-03-01T10:00:00.000Z");
    expect(text).toContain("## Assistant · 2026-03-01T10:00:05.000Z");
    expect(text).toContain(MD_ANSWER.split("\n").slice(-1)[0]!);
  });

  it("follows the system's dark mode", async () => {
    await page.goto(`${serve.origin}/`);
    await page.waitForSelector(".conv");
    const background = () => page.locator("html").evaluate((root) => getComputedStyle(root).backgroundColor);
    await page.emulateMedia({ colorScheme: "light" });
    expect(isDark(await background())).toBe(false);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(isDark(await background())).toBe(true);
    await page.screenshot({ path: path.join(OUTPUT, "dashboard-dark.png") });
    await page.emulateMedia({ colorScheme: "light" });
  });

  it("pages the agents-consulted view, names error kinds, and lists a get_conversation under its conversation", async () => {
    const { client } = await connectMcp(demo.env, { name: "dashboard-browse-test" });
    const conversation = `claude:${MD_SESSION}`;
    try {
      for (let i = 0; i < 30; i++) {
        await client.callTool({ name: "search_history", arguments: { query: MD_TOKEN } });
      }
      const hits = JSON.parse(
        (
          (await client.callTool({ name: "search_history", arguments: { query: MD_TOKEN } })) as {
            content: { text: string }[];
          }
        ).content[0]!.text,
      ) as { hits: { id: string; conversation: string }[] };
      const hit = hits.hits.find((h) => h.conversation === conversation)!;
      await client.callTool({ name: "get_conversation", arguments: { id: conversation, around: hit.id } });
      await client.callTool({ name: "get_conversation", arguments: { id: "claude:no-such-session" } });
    } finally {
      await client.close();
    }
    await page.goto(`${serve.origin}/?view=consulted`);
    await page.waitForSelector("#consulted-rows tr td + td");
    expect(await page.locator("#consulted-rows tr").count()).toBe(25);
    const failed = page.locator("#consulted-rows tr.failed").first();
    expect(await failed.locator("td").nth(2).textContent()).toBe("get_conversation");
    expect(await failed.locator("td").nth(3).textContent()).toBe("error: NotFound");
    const read = page.locator("#consulted-rows tr:not(.failed)", { hasText: "get_conversation" }).first();
    expect(await read.locator(".returned").textContent()).toBe(conversation);
    const firstPage = await page.locator("#consulted-rows tr td:first-child").allTextContents();
    await page.click("#consulted-older");
    await page.waitForSelector("#consulted-newer:not([hidden])");
    expect(await page.locator("#consulted-page").textContent()).toMatch(/^26–/);
    expect(await page.locator("#consulted-rows tr").count()).toBeGreaterThan(0);
    await page.click("#consulted-newer");
    await page.waitForSelector("#consulted-newer[hidden]", { state: "attached" });
    expect(await page.locator("#consulted-rows tr td:first-child").allTextContents()).toEqual(firstPage);
  });

  it("moves with the keyboard: / focuses search, arrows move through results, Enter opens", async () => {
    await page.goto(`${serve.origin}/?q=cache`);
    await page.waitForSelector(".hit");
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("/");
    expect(await page.evaluate(() => (document.activeElement as { id?: string } | null)?.id)).toBe("q");
    await page.keyboard.press("ArrowDown");
    const ids = await page.locator(".hit .hit-id").allTextContents();
    const focused = () =>
      page.evaluate(
        () =>
          (
            document.activeElement as {
              querySelector(s: string): { textContent: string | null } | null;
            } | null
          )?.querySelector(".hit-id")?.textContent ?? null,
      );
    expect(await focused()).toBe(ids[0]);
    await page.keyboard.press("ArrowDown");
    expect(await focused()).toBe(ids[1]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    expect(await focused()).toBe(ids[1]);
    await page.keyboard.press("Enter");
    await page.waitForSelector(".record.focus");
    expect(await page.locator(".record.focus").getAttribute("data-id")).toBe(ids[1]);
    // "/" from the conversation goes back to the search box.
    await page.keyboard.press("/");
    expect(await page.evaluate(() => (document.activeElement as { id?: string } | null)?.id)).toBe("q");
  });

  it("loaded nothing from anywhere but its own server (no CDN)", () => {
    expect(requested.some((url) => url.endsWith("/assets/vendor/markdown-it.mjs"))).toBe(true);
    expect(requested.filter((url) => !url.startsWith(`${serve.origin}/`))).toEqual([]);
  });
});
