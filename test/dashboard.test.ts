/**
 * The dashboard in a real browser: the system Chromium (Debian packages chromium and
 * chromium-driver, which .ci/run installs) driven by playwright-core, against real `recall serve`
 * and `recall mcp` processes over the demo corpus. A screenshot of the results page is saved to
 * test-output/ (gitignored).
 *
 * Without /usr/bin/chromium the suite is skipped with a visible note on a developer's machine;
 * in CI (CI=true or RECALL_REQUIRE_BROWSER=1) a missing browser fails the run instead.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserPresent as present,
  browserRequired as required,
  CHROMIUM,
  loginPage as login,
  openBrowser,
  OUTPUT,
  writeClaudeSession,
} from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { connectMcp } from "./helpers/mcp.js";
import { startServe, type ServeProcess } from "./helpers/http.js";
import { tempDir } from "./helpers/tmp.js";

/*
 * Callbacks given to page.evaluate/waitForFunction run in the browser; the project's tsconfig has
 * no DOM library (it is a Node program), so the few browser globals they use are named here.
 */
declare const document: {
  cookie: string;
  querySelectorAll(selector: string): { length: number };
  querySelector(selector: string): { textContent: string | null } | null;
  getElementById(id: string): { textContent: string | null } | null;
};
declare const location: { search: string };
declare const window: { __recallXss?: number };

if (!present && !required) {
  console.warn(`[skip] ${CHROMIUM} is absent: the dashboard browser tests are skipped (CI installs it).`);
}

/** Text a correct page shows as text; as HTML it would run a script or an onerror handler. */
const XSS_TOKEN = "xylophonequartz";
const XSS_TEXT = `${XSS_TOKEN} payload <script>window.__recallXss = 1</script> and <img src=x onerror="window.__recallXss = 2"> end`;
const XSS_SESSION = "5d1f3b7e-0000-4000-8000-00000000abcd";

/** The hostile text in a session under the demo HOME. */
function writeHostileSession(demo: DemoHome): void {
  writeClaudeSession(
    demo.manifest.paths.claudeConfigDir,
    "/home/demo/code/xss-check",
    XSS_SESSION,
    XSS_TEXT,
    // "İ" lowercases to two UTF-16 units: a highlight found in the lowercased text would be misplaced.
    `That text contains <b>markup</b> and &lt;entities&gt; for İİİİ ${XSS_TOKEN}.`,
  );
}

/**
 * A Turkish session: "İ" (U+0130) lowercases to "i" + U+0307, which a case-insensitive regex does
 * not match against "İ"; "ı" (dotless) is another letter. The id's first eight characters differ
 * from the hostile session's: writeClaudeSession derives the record ids from them.
 */
const TURKISH_SESSION = "7a2c4e9f-0000-4000-8000-00000000beef";
const TURKISH_TEXT = "Toplantı notları: İstanbul ofisi, ISTANBUL ekibi, istanbul deposu ve KİTAP listesi.";

/** Every URL the browser asked for (the page must work offline: nothing but its own server). */
const requested: string[] = [];

/** Logs in through the printed token URL; the page lands on "/" without the token. */
const loginPage = (context: BrowserContext, serve: ServeProcess): Promise<Page> =>
  login(context, serve, requested);

describe.skipIf(!present && !required)("dashboard in Chromium", () => {
  let demo: DemoHome;
  let serve: ServeProcess;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let page: Page;

  beforeAll(async () => {
    expect(present, `${CHROMIUM} is missing: install the Debian packages chromium and chromium-driver`).toBe(
      true,
    );
    demo = await createDemoHome({ seed: 53, messages: 600 });
    writeHostileSession(demo);
    writeClaudeSession(
      demo.manifest.paths.claudeConfigDir,
      "/home/demo/code/turkish-notes",
      TURKISH_SESSION,
      "toplantı notlarını özetle",
      TURKISH_TEXT,
    );
    const indexed = runCli(["index"], demo.env);
    expect(indexed.status, indexed.stderr).toBe(0);
    serve = await startServe(demo.env);
    browser = await openBrowser();
    page = await loginPage(browser.context, serve);
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    demo?.cleanup();
  });

  it("logged in with an HttpOnly, SameSite=Strict cookie; the token is gone from the address", async () => {
    const cookies = await browser.context.cookies(serve.origin);
    const login = cookies.find((c) => c.name === `recall_ui_${serve.port}`)!;
    expect(login.httpOnly).toBe(true);
    expect(login.sameSite).toBe("Strict");
    expect(await page.evaluate(() => document.cookie)).toBe("");
    expect(page.url()).not.toContain("token");
    // The spent link does not log a second browser in.
    const other = await browser.context.browser()?.newContext();
    if (other) {
      const p = await other.newPage();
      const res = await p.goto(serve.loginUrl);
      expect(res?.status()).toBe(403);
      await other.close();
    }
  });

  it("searches the demo corpus with highlighted snippets, applies a filter, and saves a screenshot", async () => {
    await page.fill("#q", "decision cache");
    await page.press("#q", "Enter");
    await page.waitForSelector(".hit");
    const hits = await page.locator(".hit").count();
    expect(hits).toBeGreaterThan(0);
    const marks = await page.locator(".hit .snippet mark").allTextContents();
    expect(marks.length).toBeGreaterThan(0);
    for (const m of marks) expect(["decision", "cache"]).toContain(m.toLowerCase());
    expect(page.url()).toContain("q=decision+cache");

    await page.selectOption("#f-agent", "codex");
    await page.waitForFunction(() => new URLSearchParams(location.search).get("agent") === "codex");
    await page.waitForSelector(".hit");
    const agents = await page.locator(".hit .hit-meta .badge:first-child").allTextContents();
    expect(agents.length).toBeGreaterThan(0);
    expect(new Set(agents)).toEqual(new Set(["codex"]));

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: path.join(OUTPUT, "dashboard-results.png"), fullPage: true });
    expect(existsSync(path.join(OUTPUT, "dashboard-results.png"))).toBe(true);
  });

  it("names every registered agent by its display name, in the agent picker and in coverage", async () => {
    await page.goto(`${serve.origin}/`);
    await page.waitForFunction(
      () => document.querySelector('#f-agent option[value="gemini"]')?.textContent === "Gemini CLI",
    );
    expect(await page.locator("#f-agent option").allTextContents()).toEqual([
      "any",
      "Claude Code",
      "Codex",
      "opencode",
      "Gemini CLI",
      "Qwen Code",
      "GitHub Copilot CLI",
      "pi",
      "Cline",
      "Kilo Code",
      "Continue",
      "other",
    ]);
    await page.click('.tab[data-view="coverage"]');
    await page.locator("#coverage-rows tr", { hasText: "Qwen Code (qwen-code)" }).waitFor();
    await page.goto(`${serve.origin}/?q=the&agent=qwen`);
    await page.waitForSelector(".hit");
    const agents = await page.locator(".hit .hit-meta .badge:first-child").allTextContents();
    expect(new Set(agents)).toEqual(new Set(["qwen"]));
  });

  it("opens a hit in its conversation around the hit and pages both ways", async () => {
    await page.goto(`${serve.origin}/?q=decision&limit=50`);
    await page.waitForSelector(".hit");
    // A hit deep enough in a long conversation that there are records on both sides.
    const hitCount = await page.locator(".hit").count();
    let opened = false;
    for (let i = 0; i < hitCount && !opened; i++) {
      await page.locator(".hit-open").nth(i).click();
      await page.waitForSelector(".record.focus");
      const older = await page.locator("#load-older").isVisible();
      const newer = await page.locator("#load-newer").isVisible();
      if (older && newer) opened = true;
      else await page.click("#back-to-results");
    }
    expect(opened, "a hit with older and newer records").toBe(true);
    expect(page.url()).toMatch(/\?conversation=.+&record=/);
    const focusText = await page.locator(".record.focus .record-text").textContent();
    expect(focusText?.toLowerCase()).toContain("decision");
    const start = await page.locator(".record").count();
    await page.click("#load-older");
    await page.waitForFunction((n) => document.querySelectorAll(".record").length > n, start);
    const afterOlder = await page.locator(".record").count();
    await page.click("#load-newer");
    await page.waitForFunction((n) => document.querySelectorAll(".record").length > n, afterOlder);
    // The focused record stays where it was: older records went above it, newer below.
    const ids = await page.locator(".record").evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
    const focus = await page.locator(".record.focus").getAttribute("data-id");
    const at = ids.indexOf(focus);
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(ids.length - 1);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("renders <script> and <img onerror> text from history as text", async () => {
    await page.goto(`${serve.origin}/`);
    await page.fill("#q", XSS_TOKEN);
    await page.press("#q", "Enter");
    await page.waitForSelector(".hit");
    const snippets = await page.locator(".hit .snippet").allTextContents();
    expect(snippets.join("\n")).toContain("<script>");
    expect(snippets.join("\n")).toContain("İİİİ");
    const marks = await page.locator(".hit .snippet mark").allTextContents();
    expect(marks.length).toBeGreaterThan(1);
    for (const m of marks) expect(m.toLowerCase()).toBe(XSS_TOKEN);
    await page.locator(".hit-open", { hasText: "<script>" }).first().click();
    await page.waitForSelector(".record.focus");
    const texts = await page.locator(".record-text").allTextContents();
    const all = texts.join("\n");
    expect(all).toContain("<script>window.__recallXss = 1</script>");
    expect(all).toContain('<img src=x onerror="window.__recallXss = 2">');
    expect(all).toContain("<b>markup</b>");
    expect(await page.locator("main script, main img, main b").count()).toBe(0);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => window.__recallXss)).toBeUndefined();
  });

  it('marks the words with "İ" the search matched, whichever of İ, I or i the query wrote', async () => {
    for (const [query, wanted] of [
      ["İstanbul", ["İstanbul", "ISTANBUL", "istanbul"]],
      ["istanbul kitap", ["İstanbul", "ISTANBUL", "istanbul", "KİTAP"]],
      ["İSTANBUL KİTAP", ["İstanbul", "ISTANBUL", "istanbul", "KİTAP"]],
    ] as const) {
      await page.goto(`${serve.origin}/?${new URLSearchParams({ q: query })}`);
      await page.waitForSelector(".hit");
      const snippet = page.locator(".hit .snippet", { hasText: "Toplantı notları" });
      expect(await snippet.textContent(), query).toBe(TURKISH_TEXT);
      expect(await snippet.locator("mark").allTextContents(), query).toEqual(wanted);
    }
  });

  it("opens the spec's navigation keys: a transcript link with a sub-agent's child session, and ?message=", async () => {
    // Words of the generated corpus's templates, until one finds a sub-agent's record too.
    let hits: { id: string; link: string; conversation: string }[] = [];
    for (const q of ["decision", "requirement", "bug", "fails", "next"]) {
      const out = (await page.evaluate(async (query) => {
        const r = await fetch(`/api/search?q=${query}&limit=50&agent=claude`);
        return r.json();
      }, q)) as { hits: typeof hits };
      hits = out.hits;
      if (hits.some((h) => h.link.includes("&child="))) break;
    }
    const child = hits.find((h) => h.link.includes("&child="));
    const main = hits.find((h) => !h.link.includes("&child="))!;
    for (const hit of [main, ...(child ? [child] : [])]) {
      await page.goto(`${serve.origin}${hit.link}`);
      await page.waitForSelector(".record.focus");
      expect(await page.locator(".record.focus").getAttribute("data-id")).toBe(hit.id);
      expect(await page.locator("#conversation-title").textContent()).toBe(hit.conversation);
    }
    expect(child, "a Claude sub-agent hit among the results").toBeDefined();
    await page.goto(`${serve.origin}/?message=does-not-exist`);
    await page.waitForFunction(
      () => document.getElementById("conversation-title")?.textContent === "Not found",
    );
  });

  it("lists a real recall mcp tool call in the agents-consulted view", async () => {
    const { client } = await connectMcp(demo.env, { name: "dashboard-test" });
    let conversations: string[] = [];
    try {
      const result = await client.callTool({ name: "search_history", arguments: { query: XSS_TOKEN } });
      const out = JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as {
        hits: { conversation: string }[];
      };
      conversations = out.hits.map((h) => h.conversation);
      expect(conversations.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    await page.goto(`${serve.origin}/?view=consulted`);
    const row = page
      .locator("#consulted-rows tr", { hasText: "search_history" })
      .filter({ hasText: "mcp" })
      .first();
    await row.waitFor();
    expect(await row.locator("td").nth(3).textContent()).toBe(String(conversations.length));
    expect(await row.locator(".returned").textContent()).toContain(conversations[0]!);
    expect(await page.locator("#view-consulted").textContent()).not.toContain(XSS_TOKEN);
    await row.locator(".returned button").first().click();
    await page.waitForSelector(".record");
    expect(await page.locator("#conversation-title").textContent()).toBe(conversations[0]);
  });

  it("loaded nothing from anywhere but its own server (no CDN)", () => {
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => !url.startsWith(`${serve.origin}/`))).toEqual([]);
  });
});

describe.skipIf(!present && !required)("dashboard while a backfill is still running", () => {
  it("shows the still-indexing state, then the caught-up state", async () => {
    expect(present, `${CHROMIUM} is missing: install the Debian packages chromium and chromium-driver`).toBe(
      true,
    );
    const t = tempDir("recall-backfill-");
    const home = path.join(t.dir, "home");
    const claude = path.join(home, ".claude");
    // Many sessions: the broker's worker polls two files per bounded batch, with a pause between
    // batches, so this backfill runs for several seconds while the page is open.
    for (let i = 0; i < 300; i++) {
      const id = `${String(i).padStart(8, "0")}-1111-4111-8111-000000000001`;
      writeClaudeSession(
        claude,
        `/home/demo/code/p${i % 7}`,
        id,
        `question ${i} about caching`,
        `answer ${i}`,
      );
    }
    const env = {
      HOME: home,
      RECALL_HOME: path.join(t.dir, "recall"),
      CLAUDE_CONFIG_DIR: claude,
      CODEX_HOME: path.join(home, ".codex"),
      XDG_DATA_HOME: path.join(home, ".local", "share"),
      XDG_CONFIG_HOME: path.join(home, ".config"),
    };
    const serve = await startServe(env);
    const browser = await openBrowser();
    try {
      const page = await loginPage(browser.context, serve);
      await page.waitForFunction(
        () => document.getElementById("index-state")?.textContent === "Still indexing…",
        null,
        {
          timeout: 20_000,
        },
      );
      await page.click('.tab[data-view="coverage"]');
      const row = page.locator("#coverage-rows tr", { hasText: "claude-code" });
      await row.waitFor();
      expect(await row.locator("td").nth(1).textContent()).toBe("still indexing");
      expect(serve.stderr()).toMatch(/elected broker/);
      // The state is live: once the backfill is done the page says so without a reload.
      await page.waitForFunction(
        () => document.getElementById("index-state")?.textContent === "Index up to date",
        null,
        {
          timeout: 180_000,
        },
      );
    } finally {
      await browser.close();
      await serve.stop();
      t.cleanup();
    }
  }, 240_000);
});
