/* global document, window, fetch, location, history, URLSearchParams, setInterval, clearInterval, HTMLElement */
// The recall dashboard: vanilla JS, no dependencies, no CDN. Text from history is only ever set
// through text nodes (textContent / createTextNode), never parsed as HTML.

const $ = (id) => document.getElementById(id);

/** An element with attributes and children; strings become text nodes, never markup. */
/** Agents' and sources' display names, from the source registry (the server fills data-names). */
let NAMES = null;
function displayName(id) {
  if (NAMES === null) {
    try {
      NAMES = JSON.parse(document.getElementById("f-agent")?.dataset.names || "{}");
    } catch {
      NAMES = {};
    }
  }
  return NAMES[id] ?? id;
}
/** "Claude Code (claude-code)": the display name, and the source name status and config use. */
const sourceLabel = (source) =>
  displayName(source) === source ? source : `${displayName(source)} (${source})`;

function el(tag, attrs = {}, ...children) {
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
function queryTokens(query) {
  const seen = new Set();
  for (const m of query.normalize("NFC").matchAll(/[\p{L}\p{N}\p{M}]+/gu)) seen.add(m[0].toLowerCase());
  return [...seen];
}

/**
 * Text with the query's terms marked: the text is split into text nodes and <mark> elements, so
 * nothing in it is ever interpreted as markup.
 */
function highlighted(text, tokens) {
  if (tokens.length === 0) return [document.createTextNode(text)];
  // Matched in the text itself, case-insensitively: offsets found in text.toLowerCase() would be
  // off after a character whose lowercase is longer ("İ").
  // The index (unicode61, remove_diacritics) folds "İ" and an i or I with a combining dot above
  // to "i", so a query's "i" and "İ" (lowercased "i̇") find them all; a case-insensitive regex
  // does not ("İ" has no simple case folding), so each i stands for every such form.
  const alternatives = [...tokens]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/[iİ]\u0307?/g, "[iIİ]\u0307?"));
  const pattern = new RegExp(alternatives.join("|"), "giu");
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

const fmtTime = (ms) => (ms === null || ms === undefined ? "—" : new Date(ms).toLocaleString());

async function api(path) {
  const res = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!res.ok) {
    const message = body && typeof body.error === "string" ? body.error : `HTTP ${res.status}`;
    throw new Error(res.status === 403 ? `${message} (log in again with a fresh link)` : message);
  }
  return body;
}

// ---- views -------------------------------------------------------------------------------

const VIEWS = ["search", "conversation", "coverage", "consulted"];
let currentView = "search";

function show(view) {
  currentView = view;
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  const tabView = view === "conversation" ? "search" : view;
  for (const tab of document.querySelectorAll(".tab")) {
    tab.setAttribute("aria-pressed", String(tab.dataset.view === tabView));
  }
  if (view === "coverage") refreshStatus();
  if (view === "consulted") refreshConsulted();
}

function setUrl(params, replace = false) {
  const query = new URLSearchParams(params).toString();
  const url = query ? `/?${query}` : "/";
  if (url === `${location.pathname}${location.search}`) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
}

// ---- search ------------------------------------------------------------------------------

const FILTER_IDS = { project: "f-project", agent: "f-agent", kind: "f-kind" };

/** A date input's day as epoch milliseconds in local time (start of day, or end for until). */
function dayBound(value, end) {
  if (!value) return null;
  const d = new Date(`${value}T00:00:00`);
  if (end) d.setDate(d.getDate() + 1);
  return String(d.getTime() - (end ? 1 : 0));
}

function formState() {
  const state = { q: $("q").value.trim() };
  for (const [name, id] of Object.entries(FILTER_IDS)) if ($(id).value) state[name] = $(id).value.trim();
  if ($("f-since").value) state.since = $("f-since").value;
  if ($("f-until").value) state.until = $("f-until").value;
  state.limit = $("f-limit").value;
  return state;
}

function fillForm(state) {
  $("q").value = state.q ?? "";
  for (const [name, id] of Object.entries(FILTER_IDS)) $(id).value = state[name] ?? "";
  $("f-since").value = state.since ?? "";
  $("f-until").value = state.until ?? "";
  $("f-limit").value = state.limit ?? "20";
}

let lastResults = null;
// Answers can arrive out of order (a filter change, then a new query): only the latest counts.
let searchSeq = 0;
let conversationSeq = 0;

async function runSearch(state) {
  const seq = ++searchSeq;
  const params = new URLSearchParams({ q: state.q, limit: state.limit ?? "20" });
  for (const name of Object.keys(FILTER_IDS)) if (state[name]) params.set(name, state[name]);
  const since = dayBound(state.since, false);
  const until = dayBound(state.until, true);
  if (since) params.set("since", since);
  if (until) params.set("until", until);
  const message = $("search-message");
  message.textContent = "Searching…";
  $("results").replaceChildren();
  try {
    const out = await api(`/api/search?${params}`);
    if (seq !== searchSeq) return;
    lastResults = { state, out };
    renderResults(state, out);
  } catch (error) {
    if (seq === searchSeq) message.textContent = error.message;
  }
}

/** Projects seen in results so far, offered as completions of the project filter. */
const knownProjects = new Set();

function rememberProjects(hits) {
  let changed = false;
  for (const hit of hits) {
    if (hit.project && !knownProjects.has(hit.project)) {
      knownProjects.add(hit.project);
      changed = true;
    }
  }
  if (changed)
    $("projects").replaceChildren(...[...knownProjects].sort().map((p) => el("option", { value: p })));
}

function renderResults(state, out) {
  rememberProjects(out.hits);
  const tokens = queryTokens(state.q);
  // coverage is one object when every source is ready, else a list of sources.
  const indexing = Array.isArray(out.coverage) && out.coverage.some((c) => c.state === "indexing");
  const count = out.hits.length;
  $("search-message").textContent =
    `${count === 0 ? "No hits" : `${count} hit${count === 1 ? "" : "s"}`} (engine ${out.engine})` +
    (indexing ? " · still indexing: results may be incomplete" : "");
  $("results").replaceChildren(
    ...out.hits.map((hit) =>
      el(
        "li",
        { className: "hit" },
        el(
          "button",
          { type: "button", className: "hit-open", onclick: () => openHit(hit, tokens) },
          el(
            "div",
            { className: "hit-meta" },
            el("span", { className: "badge", title: displayName(hit.agent) }, hit.agent),
            el("span", { className: "badge kind" }, hit.kind),
            hit.relaxed
              ? el("span", { className: "badge soft", title: "matched only some words" }, "relaxed")
              : null,
            hit.active
              ? el("span", { className: "badge live", title: "written in the last 10 minutes" }, "active")
              : null,
            el("span", { className: "when" }, fmtTime(hit.at)),
            hit.project ? el("span", { className: "project" }, hit.project) : null,
          ),
          el("p", { className: "snippet" }, highlighted(hit.snippet, tokens)),
          el("div", { className: "hit-id" }, hit.id),
        ),
      ),
    ),
  );
}

// ---- conversation ------------------------------------------------------------------------

const conv = { id: null, prev: null, next: null, focus: null, tokens: [] };

function recordItem(record) {
  const isFocus = record.id === conv.focus;
  return el(
    "li",
    { className: `record role-${record.role}${isFocus ? " focus" : ""}`, "data-id": record.id },
    el(
      "div",
      { className: "record-meta" },
      el("span", { className: "badge" }, record.role),
      el("span", { className: "when" }, fmtTime(record.at)),
      record.truncated ? el("span", { className: "badge soft" }, "truncated") : null,
    ),
    el("div", { className: "record-text" }, highlighted(record.text, conv.tokens)),
  );
}

function updatePagers() {
  $("load-older").hidden = !conv.prev;
  $("load-newer").hidden = !conv.next;
}

async function openConversation(conversation, focus, tokens = [], push = true, urlState = null) {
  const seq = ++conversationSeq;
  conv.id = conversation;
  conv.focus = focus;
  conv.tokens = tokens;
  conv.prev = null;
  conv.next = null;
  $("conversation-title").textContent = conversation;
  $("records").replaceChildren();
  $("conversation-message").textContent = "Loading…";
  updatePagers();
  show("conversation");
  if (push) setUrl(urlState ?? { conversation, ...(focus ? { record: focus } : {}) });
  const query = new URLSearchParams({ limit: "20" });
  if (focus) query.set("around", focus);
  try {
    const page = await api(`/api/conversations/${encodeURIComponent(conversation)}?${query}`);
    if (seq !== conversationSeq) return;
    conv.prev = page.prev ?? null;
    conv.next = page.next ?? null;
    $("records").replaceChildren(...page.records.map(recordItem));
    $("conversation-message").textContent = page.records.length === 0 ? "No retained records." : page.notice;
    updatePagers();
    const target = document.querySelector(".record.focus");
    if (target) target.scrollIntoView({ block: "center" });
  } catch (error) {
    if (seq === conversationSeq) $("conversation-message").textContent = error.message;
  }
}

async function loadOlder() {
  if (!conv.prev) return;
  const seq = conversationSeq;
  const page = await api(
    `/api/conversations/${encodeURIComponent(conv.id)}?${new URLSearchParams({ before: conv.prev, limit: "20" })}`,
  );
  if (seq !== conversationSeq) return;
  conv.prev = page.prev ?? null;
  $("records").prepend(...page.records.map(recordItem));
  updatePagers();
}

async function loadNewer() {
  if (!conv.next) return;
  const seq = conversationSeq;
  const page = await api(
    `/api/conversations/${encodeURIComponent(conv.id)}?${new URLSearchParams({ after: conv.next, limit: "20" })}`,
  );
  if (seq !== conversationSeq) return;
  conv.next = page.next ?? null;
  $("records").append(...page.records.map(recordItem));
  updatePagers();
}

/** A hit without retained context (e.g. a run chunk) shows its indexed document alone. */
async function openDocument(id, tokens) {
  const seq = ++conversationSeq;
  conv.id = null;
  conv.prev = conv.next = null;
  conv.focus = id;
  conv.tokens = tokens;
  $("conversation-title").textContent = id;
  updatePagers();
  show("conversation");
  try {
    const doc = await api(`/api/history/${encodeURIComponent(id)}`);
    if (seq !== conversationSeq) return;
    $("records").replaceChildren(recordItem({ id: doc.id, role: doc.kind, at: doc.at, text: doc.body }));
    $("conversation-message").textContent = "";
  } catch (error) {
    $("records").replaceChildren();
    $("conversation-message").textContent = error.message;
  }
}

function openHit(hit, tokens) {
  if (hit.conversation) return openConversation(hit.conversation, hit.id, tokens);
  return openDocument(hit.id, tokens);
}

/** The history spec's navigation keys: ?message=, ?session=&agent=&from=[&child=], ?conversation=&record=. */
async function navigate(params) {
  try {
    const target = await api(`/api/locate?${params}`);
    if (target.conversation) await openConversation(target.conversation, target.focus, [], false);
    else if (target.focus) await openDocument(target.focus, []);
  } catch (error) {
    show("conversation");
    $("conversation-title").textContent = "Not found";
    $("records").replaceChildren();
    $("conversation-message").textContent = error.message;
  }
}

// ---- coverage ----------------------------------------------------------------------------

let lastStatus = null;

async function refreshStatus() {
  try {
    lastStatus = await api("/api/status");
  } catch (error) {
    $("index-state").textContent = error.message;
    $("index-state").className = "index-state error";
    return;
  }
  const s = lastStatus;
  const stale = s.coverage.length > 0 && s.coverage.every((c) => c.state === "stale");
  const label = s.indexing
    ? "Still indexing…"
    : s.coverage.length === 0
      ? "Index empty"
      : stale
        ? "Index not being updated"
        : "Index up to date";
  $("index-state").textContent = label;
  $("index-state").className = `index-state ${s.indexing ? "indexing" : stale ? "stale" : "ready"}`;
  $("coverage-summary").textContent =
    `${label}. Engine ${s.engine}.` +
    (s.lastRun
      ? ` Last full run: ${s.lastRun.records} records, finished ${fmtTime(s.lastRun.finishedAt)}.`
      : "");
  showAgentChoices(s.agents ?? []);
  $("coverage-rows").replaceChildren(
    ...s.coverage.map((c) =>
      el(
        "tr",
        { className: `state-${c.state}` },
        el("td", {}, sourceLabel(c.source)),
        el("td", {}, c.state === "indexing" ? "still indexing" : c.state),
        el("td", {}, fmtTime(c.indexedThrough)),
        el("td", {}, String(c.backlog)),
      ),
    ),
  );
}

/**
 * The agent filter's choices come from the registry (/api/status): every registered agent by its
 * display name. The page's own options (the spec's agents) stay, relabelled; a choice made stays.
 */
function showAgentChoices(agents) {
  const select = $("f-agent");
  const known = new Map([...select.options].map((o) => [o.value, o]));
  const other = known.get("other") ?? null;
  for (const { value, label } of agents) {
    const option = known.get(value) ?? select.insertBefore(el("option", { value }), other);
    if (option.textContent !== label) option.textContent = label;
  }
}

// ---- agents consulted --------------------------------------------------------------------

const RETURNED_SHOWN = 6;

/** The first few returned ids as links that open them; the rest as a count. */
function returnedCell(ids) {
  if (ids.length === 0) return "—";
  const shown = ids
    .slice(0, RETURNED_SHOWN)
    .map((id) =>
      el("button", { type: "button", className: "linklike", onclick: () => openConversation(id, null) }, id),
    );
  const more = ids.length - shown.length;
  return more > 0 ? [...shown, el("span", { className: "more" }, `+${more} more`)] : shown;
}

async function refreshConsulted() {
  let out;
  try {
    out = await api("/api/consulted?limit=100");
  } catch (error) {
    $("consulted-rows").replaceChildren(el("tr", {}, el("td", { colspan: "5" }, error.message)));
    return;
  }
  const includeHttp = $("include-http").checked;
  const calls = out.calls.filter((c) => includeHttp || c.surface !== "http");
  if (calls.length === 0) {
    $("consulted-rows").replaceChildren(
      el("tr", {}, el("td", { colspan: "5" }, "No tool calls recorded yet.")),
    );
    return;
  }
  $("consulted-rows").replaceChildren(
    ...calls.map((c) =>
      el(
        "tr",
        { className: c.ok ? "" : "failed" },
        el("td", {}, fmtTime(c.at)),
        el("td", {}, c.surface),
        el("td", {}, c.tool),
        el("td", {}, c.ok ? String(c.results) : "error"),
        el("td", {}, el("div", { className: "returned" }, returnedCell(c.returned))),
      ),
    ),
  );
}

// ---- start -------------------------------------------------------------------------------

function route() {
  const params = new URLSearchParams(location.search);
  if (params.has("q")) {
    const state = Object.fromEntries(params);
    fillForm(state);
    show("search");
    return runSearch(state);
  }
  if (params.has("message") || params.has("session") || params.has("conversation")) {
    if (params.has("conversation") && !params.has("record")) {
      return openConversation(params.get("conversation"), null, [], false);
    }
    return navigate(params);
  }
  const view = params.get("view");
  show(view === "coverage" || view === "consulted" ? view : "search");
  if (lastResults && currentView === "search") renderResults(lastResults.state, lastResults.out);
}

function start() {
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const state = formState();
    if (!state.q) return;
    setUrl(state);
    show("search");
    runSearch(state);
  });
  for (const id of ["f-agent", "f-kind", "f-limit", "f-since", "f-until"]) {
    $(id).addEventListener("change", () => {
      if ($("q").value.trim()) $("search-form").requestSubmit();
    });
  }
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      const view = tab.dataset.view;
      if (view === "search" && lastResults) {
        setUrl(lastResults.state);
        fillForm(lastResults.state);
        show("search");
        renderResults(lastResults.state, lastResults.out);
        return;
      }
      setUrl(view === "search" ? {} : { view });
      show(view);
    });
  }
  $("back-to-results").addEventListener("click", () => {
    if (lastResults) {
      setUrl(lastResults.state);
      fillForm(lastResults.state);
      renderResults(lastResults.state, lastResults.out);
    } else setUrl({});
    show("search");
  });
  $("load-older").addEventListener("click", () =>
    loadOlder().catch((e) => ($("conversation-message").textContent = e.message)),
  );
  $("load-newer").addEventListener("click", () =>
    loadNewer().catch((e) => ($("conversation-message").textContent = e.message)),
  );
  $("include-http").addEventListener("change", refreshConsulted);
  window.addEventListener("popstate", route);
  // "/" jumps to the search box, as on most search pages.
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target instanceof HTMLElement && target.closest("input, select, textarea");
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      if (currentView !== "search") show("search");
      $("q").focus();
    }
  });
  route();
  refreshStatus();
  // Coverage changes while a backfill runs; the consulted list while agents work.
  let timer = setInterval(() => {
    refreshStatus();
    if (currentView === "consulted") refreshConsulted();
  }, 3000);
  window.addEventListener("pagehide", () => clearInterval(timer));
}

start();
