/**
 * The dashboard's browser tests' shared parts: the system Chromium (Debian packages chromium and
 * chromium-driver, which .ci/run installs) driven by playwright-core, a login through the printed
 * token URL, and Claude Code sessions written in the real JSONL shape.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { expect } from "vitest";
import type { ServeProcess } from "./http.js";
import { tempDir } from "./tmp.js";

export const CHROMIUM = "/usr/bin/chromium";
/** In CI (CI=true or RECALL_REQUIRE_BROWSER=1) a missing browser fails the run instead of skipping. */
export const browserRequired = process.env.CI === "true" || process.env.RECALL_REQUIRE_BROWSER === "1";
export const browserPresent = existsSync(CHROMIUM);
/** Screenshots and other artefacts of the browser tests (gitignored). */
export const OUTPUT = fileURLToPath(new URL("../../test-output/", import.meta.url));

/** One Claude Code session (a question and an answer) in the real JSONL shape. */
export function writeClaudeSession(
  claudeDir: string,
  project: string,
  sessionId: string,
  ask: string,
  answer: string,
): void {
  const dir = path.join(claudeDir, "projects", project.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(dir, { recursive: true });
  const at = Date.parse("2026-03-01T10:00:00Z");
  const base = { sessionId, cwd: project, version: "2.1.3", userType: "external" };
  const uuid = (n: number) => `${sessionId.slice(0, 8)}-0000-4000-8000-00000000000${n}`;
  const lines = [
    {
      ...base,
      type: "user",
      uuid: uuid(1),
      parentUuid: null,
      timestamp: new Date(at).toISOString(),
      message: { role: "user", content: ask },
    },
    {
      ...base,
      type: "assistant",
      uuid: uuid(2),
      parentUuid: uuid(1),
      timestamp: new Date(at + 5000).toISOString(),
      message: {
        id: `msg_${sessionId.slice(0, 8)}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: answer }],
        stop_reason: "end_turn",
      },
    },
  ];
  writeFileSync(path.join(dir, `${sessionId}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
}

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function openBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = tempDir("recall-chromium-");
  const context = await chromium.launchPersistentContext(profile.dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      profile.cleanup();
    },
  };
}

/**
 * Logs in through the printed token URL; the page lands on "/" without the token. Every URL the
 * page asks for is added to `requested` (it must work offline: nothing but its own server).
 */
export async function loginPage(
  context: BrowserContext,
  serve: ServeProcess,
  requested: string[] = [],
): Promise<Page> {
  const page = await context.newPage();
  page.on("request", (request) => requested.push(request.url()));
  page.on("pageerror", (error) => {
    throw error;
  });
  await page.goto(serve.loginUrl);
  expect(page.url()).toBe(`${serve.origin}/`);
  return page;
}
