/* global document, NodeFilter */
// History text on the page: markdown rendered by markdown-it with raw HTML off, its output
// sanitized by DOMPurify to a small allowlist, and the query's whole words marked. History text
// never becomes live HTML: markdown-it escapes any markup in it, and DOMPurify drops whatever
// else could run or load (no images, no attributes beyond href and title).
import markdownit from "/assets/vendor/markdown-it.mjs";
import DOMPurify from "/assets/vendor/purify.mjs";

const md = markdownit({ html: false, linkify: false, typographer: false, breaks: true });
// An image would be a request the history chose; its alt text is kept as text.
md.disable(["image"]);

const ALLOWED_TAGS = [
  ...["p", "br", "strong", "em", "del", "s", "code", "pre", "blockquote", "hr"],
  ...["ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "a"],
  ...["table", "thead", "tbody", "tr", "th", "td"],
];

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  // A link leaves the dashboard in a new tab, with no referrer and no handle back to this page.
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** An element with attributes and children; strings become text nodes, never markup. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "className") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Same tokenisation as the server's query compiler: letters, numbers and marks. */
export function queryTokens(query) {
  const seen = new Set();
  for (const m of query.normalize("NFC").matchAll(/[\p{L}\p{N}\p{M}]+/gu)) seen.add(m[0].toLowerCase());
  return [...seen];
}

/**
 * The query's words as one pattern that matches whole words only, as the index's tokenizer sees
 * words (letters, numbers and marks; anything else separates): `sql` marks "SQL" in
 * "0042_enable_rls.sql", never the end of "PostgreSQL".
 */
export function termPattern(tokens) {
  if (tokens.length === 0) return null;
  // Matched in the text itself, case-insensitively: offsets found in text.toLowerCase() would be
  // off after a character whose lowercase is longer ("İ"). The index (unicode61,
  // remove_diacritics) folds "İ" and an i or I with a combining dot above to "i", so a query's
  // "i" and "İ" (lowercased "i̇") find them all; a case-insensitive regex does not ("İ" has no
  // simple case folding), so each i stands for every such form.
  const alternatives = [...tokens]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/[iİ]\u0307?/g, "[iIİ]\u0307?"));
  return new RegExp(`(?<![\\p{L}\\p{N}\\p{M}])(?:${alternatives.join("|")})(?![\\p{L}\\p{N}\\p{M}])`, "giu");
}

/** Text as text nodes and <mark> elements: nothing in it is ever interpreted as markup. */
export function highlighted(text, pattern) {
  if (!pattern) return [document.createTextNode(text)];
  const out = [];
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m[0].length === 0) continue;
    if (m.index > at) out.push(document.createTextNode(text.slice(at, m.index)));
    out.push(el("mark", {}, m[0]));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(document.createTextNode(text.slice(at)));
  return out;
}

/** Marks the query's words in every text node under `root` (markup built by the sanitizer). */
function markTextNodes(root, pattern) {
  if (!pattern) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  for (const node of nodes) {
    pattern.lastIndex = 0;
    if (!pattern.test(node.data)) continue;
    pattern.lastIndex = 0;
    node.replaceWith(...highlighted(node.data, pattern));
  }
}

/** Markdown to sanitized DOM nodes, with the query's words marked. */
export function markdown(text, pattern) {
  const fragment = DOMPurify.sanitize(md.render(text), {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ["href", "title", "start", "target", "rel"],
    RETURN_DOM_FRAGMENT: true,
  });
  markTextNodes(fragment, pattern);
  return fragment;
}

/**
 * A projected record's tool lines (projection/tool-summary.ts): `[tool: Name — detail]` for a
 * call, `[result: Name ok]` or `[error: Name exit 1 — line]` before a result's preview.
 */
const TOOL_LINE = /^\[(tool|result|error): .*\]$/;

/**
 * A record's text as prose and tool blocks. A result's (or error's) preview is the lines after
 * its summary line up to the next tool line; in a `tool` record every line is tool output, so a
 * call's lines own what follows too (a write's previewed content). Elsewhere a call is one line.
 */
export function segments(text, role) {
  const out = [];
  let prose = [];
  let block = null;
  const flushProse = () => {
    if (prose.join("").trim()) out.push({ type: "prose", text: prose.join("\n") });
    prose = [];
  };
  for (const line of text.split("\n")) {
    const marker = TOOL_LINE.exec(line);
    if (marker) {
      flushProse();
      if (block) out.push(block);
      block = { type: "tool", kind: marker[1], head: line, body: [] };
    } else if (block && (role === "tool" || block.kind !== "tool")) {
      block.body.push(line);
    } else {
      if (block) out.push(block);
      block = null;
      prose.push(line);
    }
  }
  if (block) out.push(block);
  flushProse();
  // Tool output with no summary line of its own (opencode's tool turns) is still tool output.
  if (role === "tool" && out.length === 1 && out[0].type === "prose") {
    return [{ type: "tool", kind: "result", head: "[tool output]", body: out[0].text.split("\n") }];
  }
  return out;
}

/**
 * A record's text as the page shows it: prose as markdown, each tool call a line, each result a
 * collapsible block (closed unless the query's words occur in it).
 */
export function recordBody(text, role, pattern) {
  const nodes = [];
  for (const part of segments(text, role)) {
    if (part.type === "prose") {
      nodes.push(el("div", { className: "prose" }, markdown(part.text, pattern)));
      continue;
    }
    const body = part.body.join("\n").replace(/\n+$/, "");
    const head = el("span", { className: "tool-head" }, highlighted(part.head, pattern));
    if (!body.trim()) {
      nodes.push(el("div", { className: `tool-line tool-${part.kind}` }, head));
      continue;
    }
    const lines = part.body.filter((l) => l.trim()).length;
    if (pattern) pattern.lastIndex = 0;
    const open = pattern ? pattern.test(body) : false;
    nodes.push(
      el(
        "details",
        { className: `tool-block tool-${part.kind}`, open },
        el(
          "summary",
          {},
          head,
          el("span", { className: "tool-size" }, ` ${lines} line${lines === 1 ? "" : "s"}`),
        ),
        el("pre", { className: "tool-preview" }, highlighted(body, pattern)),
      ),
    );
  }
  return nodes;
}
