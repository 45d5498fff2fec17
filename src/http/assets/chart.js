/* global document */
// Sessions per day per agent as a stacked bar chart in plain SVG: no library, no inline style
// (the page's CSP allows none), colours from the stylesheet by agent class.

const SVG = "http://www.w3.org/2000/svg";
const DAY_MS = 86_400_000;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children)
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  return node;
}

/** A class name safe for any agent name the index holds. */
export const agentClass = (agent) =>
  `agent-${String(agent)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")}`;

/**
 * The chart of `/api/activity`'s answer: one bar a day from `from` to `to`, stacked by agent,
 * each segment titled with its day, agent and count (the browser shows it on hover).
 */
export function activityChart(activity) {
  const start = Date.parse(`${activity.from}T00:00:00Z`);
  const days = Math.round((Date.parse(`${activity.to}T00:00:00Z`) - start) / DAY_MS) + 1;
  const byDay = new Map();
  const agents = new Set();
  for (const row of activity.days) {
    agents.add(row.agent);
    if (!byDay.has(row.day)) byDay.set(row.day, []);
    byDay.get(row.day).push(row);
  }
  const max = Math.max(1, ...[...byDay.values()].map((rows) => rows.reduce((n, r) => n + r.sessions, 0)));
  const width = 720;
  const height = 120;
  const bar = width / days;
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height + 18}`,
    class: "activity-chart",
    role: "img",
    "aria-label": `Sessions per day from ${activity.from} to ${activity.to}, at most ${max} a day`,
  });
  chart.append(svg("line", { x1: 0, x2: width, y1: height + 0.5, y2: height + 0.5, class: "axis" }));
  for (let d = 0; d < days; d++) {
    const day = new Date(start + d * DAY_MS).toISOString().slice(0, 10);
    let y = height;
    for (const row of byDay.get(day) ?? []) {
      const h = (row.sessions / max) * (height - 4);
      y -= h;
      chart.append(
        svg(
          "rect",
          {
            x: (d * bar + 0.5).toFixed(2),
            y: y.toFixed(2),
            width: Math.max(1, bar - 1).toFixed(2),
            height: h.toFixed(2),
            class: `bar ${agentClass(row.agent)}`,
            "data-day": day,
            "data-agent": row.agent,
            "data-sessions": row.sessions,
          },
          svg("title", {}, `${day}: ${row.sessions} ${row.agent} session${row.sessions === 1 ? "" : "s"}`),
        ),
      );
    }
  }
  chart.append(svg("text", { x: 0, y: height + 14, class: "tick" }, activity.from));
  chart.append(svg("text", { x: width, y: height + 14, class: "tick end" }, activity.to));
  chart.append(svg("text", { x: 0, y: 10, class: "tick" }, `${max}/day`));
  return { chart, agents: [...agents].sort() };
}
