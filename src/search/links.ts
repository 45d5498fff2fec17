/** Navigation links of the history spec; every link is a local URL on the dashboard server. */
export interface LinkFields {
  id: string;
  kind: string;
  agent: string;
  session: string | null;
  cursor: string | null;
  run: string | null;
  message: string | null;
  conversation: string | null;
}

const q = encodeURIComponent;

export function sourceLink(id: string): string {
  return `/api/history/${q(id)}`;
}

export function navigationLink(hit: LinkFields): string {
  switch (hit.kind) {
    case "run": {
      const base = (hit.run ?? "").replace(/\.log$/, "");
      return `/api/runs/${q(base)}?from=${q(hit.cursor ?? "0")}`;
    }
    case "decision": {
      const topic = hit.id.replace(/^decision:/, "").replace(/@[^@]*$/, "");
      return `/api/decisions/${q(topic)}/history`;
    }
    case "transcript": {
      const link = `/?session=${q(hit.session ?? "")}&agent=${q(hit.agent)}&from=${q(hit.cursor ?? "")}`;
      const child = childOf(hit);
      return child === null ? link : `${link}&child=${q(child)}`;
    }
    case "chat":
      return `/?conversation=${q(hit.conversation ?? "")}&record=${q(hit.id)}`;
    default:
      return `/?message=${q(hit.message ?? hit.id)}`;
  }
}

/**
 * A sub-agent transcript that shares its parent's session (Claude Code's
 * `<agent>:<session>/agent-<id>` conversations) is named by `child`, so a byte cursor, which
 * is only unique within one file, points into the right file.
 */
function childOf(hit: LinkFields): string | null {
  const prefix = `${hit.agent}:${hit.session ?? ""}/`;
  return hit.session && hit.conversation?.startsWith(prefix) ? hit.conversation.slice(prefix.length) : null;
}
