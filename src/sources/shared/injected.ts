/**
 * Injected context hides inside "user" text: Claude wraps reminders and slash-command echoes
 * in `<system-reminder>`, `<command-name>`, `<local-command-stdout>`; Codex sends
 * `<environment_context>`, `<user_instructions>`, AGENTS.md blocks. These helpers split such
 * spans out so a mapper can tag them as context instead of user speech.
 */

export interface ContextSpan {
  label: string;
  text: string;
}

export interface InjectedSplit {
  /** What remains after removing the injected spans, trimmed; "" when nothing is left. */
  text: string;
  context: ContextSpan[];
}

const TAG_NAME = /^[A-Za-z][\w .:-]*$/;

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Splits every `<tag …>…</tag>` span whose tag is in `tags` out of `text`. An opening tag
 * without its closing tag swallows the rest of the text (publishers trim long reminders).
 */
export function splitInjected(text: string, tags: readonly string[]): InjectedSplit {
  const names = tags.filter((t) => TAG_NAME.test(t));
  if (names.length === 0 || !text.includes("<")) return { text: text.trim(), context: [] };
  const open = new RegExp(`<(${names.map(escapeRegExp).join("|")})(?:\\s[^>]*)?>`, "g");
  const context: ContextSpan[] = [];
  const kept: string[] = [];
  let cursor = 0;
  for (;;) {
    open.lastIndex = cursor;
    const match = open.exec(text);
    if (!match) break;
    const tag = match[1] ?? "";
    const bodyStart = match.index + match[0].length;
    const close = text.indexOf(`</${tag}>`, bodyStart);
    const bodyEnd = close === -1 ? text.length : close;
    kept.push(text.slice(cursor, match.index));
    context.push({ label: tag, text: text.slice(bodyStart, bodyEnd).trim() });
    cursor = close === -1 ? text.length : close + tag.length + 3;
  }
  kept.push(text.slice(cursor));
  return { text: kept.join("").trim(), context };
}

/** The tag name when `text` (after leading whitespace) opens with `<tag>` or `<tag attr=…>`. */
export function leadingTag(text: string): string | undefined {
  const match = /^\s*<([A-Za-z][\w .:-]*?)(?:\s+[\w-]+=[^>]*)?>/.exec(text.slice(0, 200));
  return match?.[1]?.trim();
}
