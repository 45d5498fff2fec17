/* global document, window, fetch, location, history, URLSearchParams, setInterval, clearInterval, HTMLElement */
// The recall dashboard: plain JS modules served by recall itself (no CDN). History text reaches
// the page only as text nodes, or as markdown through render.js (raw HTML off, sanitized).
import { el, highlighted, queryTokens, recordBody, termPattern } from "/assets/render.js";
import { activityChart, agentClass } from "/assets/chart.js";

const $ = (id) => document.getElementById(id);

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

const fmtTime = (ms) => (ms === null || ms === undefined ? "—" : new Date(ms).toLocaleString());
const plural = (n, one, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

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

/** A conversation's label: its title, else its first prompt (one line), else its id. */
function label(summary) {
  const text = summary.title || summary.firstPrompt || "";
  const line = text.replace(/\s+/g, " ").trim();
  return line ? (line.length > 140 ? `${line.slice(0, 139)}…` : line) : summary.id;
}

// ---- views -------------------------------------------------------------------------------

const VIEWS = ["search", "projects", "conversation", "coverage", "consulted"];
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
  if (view === "projects") refreshProjects();
}

function setUrl(params, replace = false) {
  const query = new URLSearchParams(params).toString();
  const url = query ? `/?${query}` : "/";
  if (url === `${location.pathname}${location.search}`) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
}

// ---- home: activity and recent conversations --------------------------------------------

const RECENT_PAGE = 20;
const home = { project: "", agent: "", offset: 0, more: false };
let recentSeq = 0;
let projectsLoaded = null;

async function loadProjects() {
  projectsLoaded ??= api("/api/projects").then((out) => out.projects);
  try {
    return await projectsLoaded;
  } catch (error) {
    projectsLoaded = null;
    throw error;
  }
}

function homeState() {
  const state = {};
  if (home.project) state.project = home.project;
  if (home.agent) state.agent = home.agent;
  if (home.offset) state.offset = String(home.offset);
  return state;
}

function recentItem(c) {
  return el(
    "li",
    { className: "conv", "data-id": c.id },
    el(
      "button",
      {
        type: "button",
        className: "conv-open nav-item",
        onclick: () => {
          backTo = "home";
          openConversation(c.id, null);
        },
      },
      el(
        "div",
        { className: "conv-title" },
        el("span", { className: `badge ${agentClass(c.agent)}` }, c.agent),
        el("span", { className: "conv-label" }, label(c)),
      ),
      el(
        "div",
        { className: "conv-meta" },
        c.project ? el("span", { className: "project" }, c.project) : null,
        el("span", { className: "when" }, fmtTime(c.updatedAt ?? c.startedAt)),
        el("span", { className: "size" }, plural(c.records, "record")),
        c.subAgents ? el("span", { className: "size" }, plural(c.subAgents, "sub-agent")) : null,
      ),
    ),
  );
}

async function loadRecent() {
  const seq = ++recentSeq;
  const params = new URLSearchParams({ limit: String(RECENT_PAGE), offset: String(home.offset) });
  if (home.project) params.set("project", home.project);
  if (home.agent) params.set("agent", home.agent);
  $("recent-message").textContent = "Loading…";
  try {
    const out = await api(`/api/recent?${params}`);
    if (seq !== recentSeq) return;
    home.more = out.more;
    $("recent").replaceChildren(...out.conversations.map(recentItem));
    $("recent-message").textContent = out.conversations.length === 0 ? "No conversations indexed yet." : "";
    const first = home.offset + 1;
    $("recent-page").textContent = out.conversations.length
      ? `${first}–${home.offset + out.conversations.length}`
      : "";
    $("recent-prev").hidden = home.offset === 0;
    $("recent-next").hidden = !out.more;
  } catch (error) {
    if (seq === recentSeq) $("recent-message").textContent = error.message;
  }
}

async function loadActivity() {
  try {
    const utcOffset = -new Date().getTimezoneOffset();
    const out = await api(`/api/activity?days=90&utc_offset=${utcOffset}`);
    if (!out.from) {
      $("activity").replaceChildren(el("p", { className: "hint" }, "No sessions indexed yet."));
      return;
    }
    const { chart, agents } = activityChart(out);
    $("activity").replaceChildren(chart);
    $("activity-legend").replaceChildren(
      ...agents.map((a) => el("li", {}, el("span", { className: `swatch ${agentClass(a)}` }), a)),
    );
  } catch (error) {
    $("activity").replaceChildren(el("p", { className: "hint" }, error.message));
  }
}

async function fillProjectFilter() {
  try {
    const projects = await loadProjects();
    const select = $("recent-project");
    select.replaceChildren(
      el("option", { value: "" }, "all projects"),
      ...projects.map((p) => el("option", { value: p.project }, `${p.project} (${p.conversations})`)),
    );
    // A project named in the address but not indexed (any more) still shows as chosen.
    if (home.project && !projects.some((p) => p.project === home.project)) {
      select.append(el("option", { value: home.project }, home.project));
    }
    select.value = home.project;
    $("projects").replaceChildren(...projects.map((p) => el("option", { value: p.project })));
  } catch {
    // The list still loads unfiltered; the error shows in the recent list if it persists.
  }
}

function showHome(state, push = false) {
  home.project = state.project ?? "";
  home.agent = ["claude", "codex", "opencode", "other"].includes(state.agent) ? state.agent : "";
  home.offset = Math.max(0, Number.parseInt(state.offset ?? "0", 10) || 0);
  $("recent-agent").value = home.agent;
  $("results").replaceChildren();
  $("search-message").textContent = "";
  $("home").hidden = false;
  show("search");
  if (push) setUrl(homeState());
  fillProjectFilter();
  loadActivity();
  return loadRecent();
}

// ---- projects ----------------------------------------------------------------------------

async function refreshProjects() {
  let projects;
  try {
    projectsLoaded = null;
    projects = await loadProjects();
  } catch (error) {
    $("project-rows").replaceChildren(el("tr", {}, el("td", { colspan: "4" }, error.message)));
    return;
  }
  if (projects.length === 0) {
    $("project-rows").replaceChildren(el("tr", {}, el("td", { colspan: "4" }, "No projects indexed yet.")));
    return;
  }
  $("project-rows").replaceChildren(
    ...projects.map((p) =>
      el(
        "tr",
        {},
        el(
          "td",
          {},
          el(
            "button",
            {
              type: "button",
              className: "linklike project-open nav-item",
              onclick: () => showHome({ project: p.project }, true),
            },
            p.project,
          ),
        ),
        el("td", {}, String(p.conversations)),
        el(
          "td",
          {},
          Object.entries(p.agents).map(([agent, n]) =>
            el("span", { className: `badge ${agentClass(agent)}` }, `${agent} ${n}`),
          ),
        ),
        el("td", {}, fmtTime(p.updatedAt)),
      ),
    ),
  );
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
/** Where "Back" returns from a conversation: the results it was opened from, or the home list. */
let backTo = "home";
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
  $("home").hidden = true;
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

/** Hits of one conversation together, in the order of each conversation's best hit. */
function groupHits(hits) {
  const groups = new Map();
  for (const hit of hits) {
    const key = hit.conversation ?? hit.id;
    if (!groups.has(key)) groups.set(key, { key, conversation: hit.conversation, hits: [] });
    groups.get(key).hits.push(hit);
  }
  return [...groups.values()];
}

/** Hits shown per conversation before "more": the best few, not a wall of one session. */
const GROUP_SHOWN = 3;

function hitItem(hit, pattern) {
  return el(
    "li",
    { className: "hit" },
    el(
      "button",
      { type: "button", className: "hit-open nav-item", onclick: () => openHit(hit, pattern) },
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
      el("p", { className: "snippet" }, highlighted(hit.snippet, pattern)),
      el("div", { className: "hit-id" }, hit.id),
    ),
  );
}

function groupItem(group, pattern) {
  const first = group.hits[0];
  const title = el("span", { className: "group-label" }, first.title || group.conversation || first.id);
  const list = el(
    "ol",
    { className: "group-hits" },
    group.hits.slice(0, GROUP_SHOWN).map((h) => hitItem(h, pattern)),
  );
  const rest = group.hits.length - GROUP_SHOWN;
  const more =
    rest > 0
      ? el(
          "button",
          {
            type: "button",
            className: "linklike more-hits",
            onclick: (event) => {
              list.append(...group.hits.slice(GROUP_SHOWN).map((h) => hitItem(h, pattern)));
              event.currentTarget.remove();
            },
          },
          `${plural(rest, "more hit")} in this conversation`,
        )
      : null;
  const item = el(
    "li",
    { className: "group", "data-conversation": group.conversation ?? "" },
    el(
      "div",
      { className: "group-head" },
      el("span", { className: `badge ${agentClass(first.agent)}` }, first.agent),
      title,
      el("span", { className: "hint" }, plural(group.hits.length, "hit")),
    ),
    list,
    more,
  );
  // A conversation with no title of its own is named by its first prompt, read when shown.
  if (!first.title && group.conversation) {
    api(`/api/family/${encodeURIComponent(group.conversation)}`)
      .then((family) => (title.textContent = label(family.conversation)))
      .catch(() => {});
  }
  return item;
}

function renderResults(state, out) {
  const pattern = termPattern(queryTokens(state.q));
  $("home").hidden = true;
  // coverage is one object when every source is ready, else a list of sources.
  const indexing = Array.isArray(out.coverage) && out.coverage.some((c) => c.state === "indexing");
  const count = out.hits.length;
  const groups = groupHits(out.hits);
  $("search-message").textContent =
    `${count === 0 ? "No hits" : `${plural(count, "hit")} in ${plural(groups.length, "conversation")}`} (engine ${out.engine})` +
    (indexing ? " · still indexing: results may be incomplete" : "");
  $("results").replaceChildren(...groups.map((g) => groupItem(g, pattern)));
}

// ---- conversation ------------------------------------------------------------------------

const conv = { id: null, prev: null, next: null, focus: null, pattern: null };

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
    el("div", { className: "record-text" }, recordBody(record.text, record.role, conv.pattern)),
  );
}

function updatePagers() {
  $("load-older").hidden = !conv.prev;
  $("load-newer").hidden = !conv.next;
}

const convLink = (summary) =>
  el(
    "button",
    {
      type: "button",
      className: "linklike subagent-link",
      onclick: () => openConversation(summary.id, null),
    },
    label(summary),
  );

/** The conversation's name and facts, its parent and its sub-agents. */
async function showFamily(conversation, seq) {
  $("conversation-name").textContent = "";
  $("conversation-facts").textContent = "";
  $("conversation-parent").hidden = true;
  $("conversation-subagents").hidden = true;
  $("export-md").hidden = true;
  try {
    const family = await api(`/api/family/${encodeURIComponent(conversation)}`);
    if (seq !== conversationSeq) return;
    const c = family.conversation;
    $("conversation-name").textContent = label(c);
    $("conversation-facts").replaceChildren(
      el("span", { className: `badge ${agentClass(c.agent)}` }, c.agent),
      c.project ? el("span", { className: "project" }, c.project) : "",
      el("span", { className: "when" }, `${fmtTime(c.startedAt)} – ${fmtTime(c.updatedAt)}`),
      el("span", { className: "size" }, plural(c.records, "record")),
    );
    if (family.parent) {
      $("conversation-parent").replaceChildren("Sub-agent of ", convLink(family.parent));
      $("conversation-parent").hidden = false;
    }
    if (family.subAgents.length) {
      $("subagents-summary").textContent = plural(family.subAgents.length, "sub-agent conversation");
      $("subagent-list").replaceChildren(...family.subAgents.map((s) => el("li", {}, convLink(s))));
      $("conversation-subagents").hidden = false;
    }
    const link = $("export-md");
    link.href = `/api/export/${encodeURIComponent(conversation)}`;
    link.setAttribute("download", "");
    link.hidden = false;
  } catch {
    // The records below still load; a document without a conversation has no family.
  }
}

async function openConversation(conversation, focus, pattern = null, push = true, urlState = null) {
  const seq = ++conversationSeq;
  conv.id = conversation;
  conv.focus = focus;
  conv.pattern = pattern;
  conv.prev = null;
  conv.next = null;
  $("conversation-title").textContent = conversation;
  $("records").replaceChildren();
  $("conversation-message").textContent = "Loading…";
  updatePagers();
  show("conversation");
  if (push) setUrl(urlState ?? { conversation, ...(focus ? { record: focus } : {}) });
  showFamily(conversation, seq);
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
    else window.scrollTo(0, 0);
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
async function openDocument(id, pattern) {
  const seq = ++conversationSeq;
  conv.id = null;
  conv.prev = conv.next = null;
  conv.focus = id;
  conv.pattern = pattern;
  $("conversation-title").textContent = id;
  $("conversation-name").textContent = "";
  $("conversation-facts").textContent = "";
  $("conversation-parent").hidden = true;
  $("conversation-subagents").hidden = true;
  $("export-md").hidden = true;
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

function openHit(hit, pattern) {
  backTo = "results";
  if (hit.conversation) return openConversation(hit.conversation, hit.id, pattern);
  return openDocument(hit.id, pattern);
}

/** The history spec's navigation keys: ?message=, ?session=&agent=&from=[&child=], ?conversation=&record=. */
async function navigate(params) {
  try {
    const target = await api(`/api/locate?${params}`);
    if (target.conversation) await openConversation(target.conversation, target.focus, null, false);
    else if (target.focus) await openDocument(target.focus, null);
  } catch (error) {
    show("conversation");
    $("conversation-title").textContent = "Not found";
    $("conversation-name").textContent = "";
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
  const text = s.indexing
    ? "Still indexing…"
    : s.coverage.length === 0
      ? "Index empty"
      : stale
        ? "Index not being updated"
        : "Index up to date";
  $("index-state").textContent = text;
  $("index-state").className = `index-state ${s.indexing ? "indexing" : stale ? "stale" : "ready"}`;
  $("coverage-summary").textContent =
    `${text}. Engine ${s.engine}.` +
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
const CONSULTED_PAGE = 25;
const consulted = { offset: 0 };

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
  const params = new URLSearchParams({
    limit: String(CONSULTED_PAGE),
    offset: String(consulted.offset),
    http: String($("include-http").checked),
    error_kinds: "true",
  });
  let out;
  try {
    out = await api(`/api/consulted?${params}`);
  } catch (error) {
    $("consulted-rows").replaceChildren(el("tr", {}, el("td", { colspan: "5" }, error.message)));
    return;
  }
  $("consulted-newer").hidden = consulted.offset === 0;
  $("consulted-older").hidden = !out.more;
  $("consulted-page").textContent = out.calls.length
    ? `${consulted.offset + 1}–${consulted.offset + out.calls.length}`
    : "";
  if (out.calls.length === 0) {
    $("consulted-rows").replaceChildren(
      el("tr", {}, el("td", { colspan: "5" }, "No tool calls recorded yet.")),
    );
    return;
  }
  $("consulted-rows").replaceChildren(
    ...out.calls.map((c) =>
      el(
        "tr",
        { className: c.ok ? "" : "failed" },
        el("td", {}, fmtTime(c.at)),
        el("td", {}, c.surface),
        el("td", {}, c.tool),
        el("td", {}, c.ok ? String(c.results) : `error: ${c.errorKind ?? "unknown"}`),
        el("td", {}, el("div", { className: "returned" }, returnedCell(c.returned))),
      ),
    ),
  );
}

// ---- keyboard ----------------------------------------------------------------------------

/** The items arrows move through in the view on screen: results, conversations, projects. */
function navItems() {
  return [...document.querySelectorAll(`#view-${currentView} .nav-item`)].filter(
    (node) => node.offsetParent !== null,
  );
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  const typing = target instanceof HTMLElement && target.closest("input, select, textarea");
  // "/" jumps to the search box, as on most search pages.
  if (event.key === "/" && !typing) {
    event.preventDefault();
    if (currentView !== "search") show("search");
    $("q").focus();
    return;
  }
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  const items = navItems();
  if (items.length === 0) return;
  // From the search box, down moves into the list below it; elsewhere arrows only act on items.
  if (typing && !(target.id === "q" && event.key === "ArrowDown")) return;
  const at = items.indexOf(document.activeElement);
  if (!typing && at === -1 && !(target instanceof HTMLElement && target === document.body)) return;
  event.preventDefault();
  const next =
    at === -1 ? 0 : Math.min(items.length - 1, Math.max(0, at + (event.key === "ArrowDown" ? 1 : -1)));
  items[next].focus();
  items[next].scrollIntoView({ block: "nearest" });
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
      return openConversation(params.get("conversation"), null, null, false);
    }
    return navigate(params);
  }
  const view = params.get("view");
  if (view === "coverage" || view === "consulted" || view === "projects") return show(view);
  fillForm({});
  return showHome(Object.fromEntries(params));
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
  $("recent-project").addEventListener("change", () =>
    showHome({ ...homeState(), project: $("recent-project").value || undefined, offset: "0" }, true),
  );
  $("recent-agent").addEventListener("change", () =>
    showHome({ ...homeState(), agent: $("recent-agent").value || undefined, offset: "0" }, true),
  );
  $("recent-prev").addEventListener("click", () =>
    showHome({ ...homeState(), offset: String(Math.max(0, home.offset - RECENT_PAGE)) }, true),
  );
  $("recent-next").addEventListener("click", () =>
    showHome({ ...homeState(), offset: String(home.offset + RECENT_PAGE) }, true),
  );
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      const view = tab.dataset.view;
      if (view === "search") {
        fillForm({});
        showHome({}, true);
        return;
      }
      setUrl({ view });
      show(view);
    });
  }
  $("back-to-results").addEventListener("click", () => {
    if (backTo === "results" && lastResults) {
      setUrl(lastResults.state);
      fillForm(lastResults.state);
      show("search");
      renderResults(lastResults.state, lastResults.out);
      return;
    }
    fillForm({});
    showHome(homeState(), true);
  });
  $("load-older").addEventListener("click", () =>
    loadOlder().catch((e) => ($("conversation-message").textContent = e.message)),
  );
  $("load-newer").addEventListener("click", () =>
    loadNewer().catch((e) => ($("conversation-message").textContent = e.message)),
  );
  $("include-http").addEventListener("change", () => {
    consulted.offset = 0;
    refreshConsulted();
  });
  $("consulted-older").addEventListener("click", () => {
    consulted.offset += CONSULTED_PAGE;
    refreshConsulted();
  });
  $("consulted-newer").addEventListener("click", () => {
    consulted.offset = Math.max(0, consulted.offset - CONSULTED_PAGE);
    refreshConsulted();
  });
  window.addEventListener("popstate", route);
  document.addEventListener("keydown", onKey);
  route();
  refreshStatus();
  // Coverage changes while a backfill runs; the consulted list while agents work (its first page).
  let timer = setInterval(() => {
    refreshStatus();
    if (currentView === "consulted" && consulted.offset === 0) refreshConsulted();
  }, 3000);
  window.addEventListener("pagehide", () => clearInterval(timer));
}

start();
