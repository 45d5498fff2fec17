import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AgentName, SOURCES } from "../../app/sources.js";
import type { Route } from "../route.js";

/**
 * The dashboard page: static HTML, CSS and vanilla JS in src/http/assets, served by this process
 * (no CDN, works offline). tsc does not copy non-TS files, so a built server (dist/http) reads
 * them from the source tree beside it.
 */
function assetDir(): string {
  for (const candidate of ["../assets/", "../../../src/http/assets/"]) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  throw new Error("dashboard assets not found (src/http/assets)");
}

const FILES = {
  "index.html": "text/html; charset=utf-8",
  "dashboard.css": "text/css; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
  "render.js": "text/javascript; charset=utf-8",
  "chart.js": "text/javascript; charset=utf-8",
} as const;

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * The agent filter's options and the display names of agents and sources, from the registry: a
 * source added there shows in the dashboard's filter, hit badges and coverage by its own name.
 */
export function withAgents(html: string): string {
  const names: Record<string, string> = {};
  for (const d of SOURCES) {
    names[d.name] = d.displayName;
    if (d.filter.own) names[d.agent] = d.displayName;
  }
  const options = AgentName.options
    .map((agent) => `<option value="${escapeHtml(agent)}">${escapeHtml(names[agent] ?? agent)}</option>`)
    .join("\n                ");
  return html
    .replace(/<!-- agent options:[^>]*-->/, options)
    .replace('data-names="{}"', `data-names="${escapeHtml(JSON.stringify(names))}"`);
}

let cache: Map<string, Buffer> | null = null;

/** Read once, on first use. */
function asset(name: keyof typeof FILES): Buffer {
  if (!cache) {
    const dir = assetDir();
    cache = new Map(Object.keys(FILES).map((f) => [f, readFileSync(`${dir}${f}`)]));
    cache.set("index.html", Buffer.from(withAgents(cache.get("index.html")!.toString("utf8"))));
  }
  return cache.get(name)!;
}

/**
 * The two libraries the page renders history with, served from node_modules (their ES module
 * browser builds; no CDN, works offline): markdown-it with raw HTML off, DOMPurify after it.
 */
const require = createRequire(import.meta.url);
const VENDOR = {
  "markdown-it.mjs": () =>
    path.join(
      path.dirname(require.resolve("markdown-it/package.json")),
      "dist/browser/markdown-it.esm.min.mjs",
    ),
  "purify.mjs": () => path.join(path.dirname(require.resolve("dompurify")), "purify.es.mjs"),
} as const;

const vendorCache = new Map<string, Buffer>();

function vendor(name: keyof typeof VENDOR): Buffer {
  let body = vendorCache.get(name);
  if (!body) vendorCache.set(name, (body = readFileSync(VENDOR[name]())));
  return body;
}

const serveVendor = (name: keyof typeof VENDOR): Route => ({
  method: "GET",
  pattern: new RegExp(`^/assets/vendor/${name.replace(/[.-]/g, "\\$&")}$`),
  handle: () => ({ body: vendor(name), type: "text/javascript; charset=utf-8" }),
});

const serve = (name: keyof typeof FILES, pattern: RegExp): Route => ({
  method: "GET",
  pattern,
  handle: () => ({ body: asset(name), type: FILES[name] }),
});

/** "/" takes the navigation keys (?message=, ?session=…) as its query; the page reads them. */
export const assetRoutes: readonly Route[] = [
  serve("index.html", /^\/$/),
  serve("dashboard.css", /^\/assets\/dashboard\.css$/),
  serve("dashboard.js", /^\/assets\/dashboard\.js$/),
  serve("render.js", /^\/assets\/render\.js$/),
  serve("chart.js", /^\/assets\/chart\.js$/),
  serveVendor("markdown-it.mjs"),
  serveVendor("purify.mjs"),
  // Browsers ask for it on their own; an empty answer keeps the console clean.
  {
    method: "GET",
    pattern: /^\/favicon\.ico$/,
    handle: () => ({ status: 204, body: "", type: "image/x-icon" }),
  },
];
