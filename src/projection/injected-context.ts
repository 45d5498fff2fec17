import { shortValue } from "./utf8.js";

/**
 * Text that coding CLIs inject into user records is not user speech: Claude Code's
 * `<system-reminder>`, slash-command wrappers and local command output; Codex's
 * `<environment_context>`, `<user_instructions>`, AGENTS.md `<INSTRUCTIONS>` and other startup
 * blocks. Their spans are removed from user text. A slash command keeps its name (and typed
 * arguments) as one short metadata line `[command: /name args]`.
 *
 * Tag names match case-insensitively; an opening tag is `<name` followed by `>` or a blank. A
 * span ends at the next `</name…>`; an unclosed span drops the rest of the text (fail closed).
 */
/** Claude Code's reminder, slash-command and local-command wrappers (its source splits on these too). */
export const CLAUDE_COMMAND_TAGS = [
  "system-reminder",
  "command-name",
  "command-message",
  "command-args",
  "command-contents",
  "local-command-stdout",
  "local-command-stderr",
  "local-command-caveat",
] as const;

export const INJECTED_TAGS: ReadonlySet<string> = new Set([
  ...CLAUDE_COMMAND_TAGS,
  "environment_context",
  "user_instructions",
  "developer_instructions",
  "instructions",
  "skills_instructions",
  "permissions",
  "apps_instructions",
  "collaboration_mode",
  "turn_aborted",
  "user_shell_command",
  "subagent_notification",
]);

/** Codex writes `# AGENTS.md instructions for <dir>` before an `<INSTRUCTIONS>` block. */
const AGENTS_HEADING = "# agents.md instructions for";

const COMMAND_MAX_CHARS = 200;

const NAME_CHAR = new Uint8Array(128);
for (let c = 48; c <= 57; c++) NAME_CHAR[c] = 1;
for (let c = 65; c <= 90; c++) NAME_CHAR[c] = 1;
for (let c = 97; c <= 122; c++) NAME_CHAR[c] = 1;
NAME_CHAR[45] = 1;
NAME_CHAR[95] = 1;

function readName(s: string, p: number): number {
  while (p < s.length) {
    const c = s.charCodeAt(p);
    if (c >= 128 || NAME_CHAR[c] !== 1) break;
    p++;
  }
  return p;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Finds `</name` (case-insensitive, followed by a non-name character) from `from`; returns [start, end after `>`]. */
function findClose(s: string, from: number, name: string): [number, number] | undefined {
  let pos = s.indexOf("</", from);
  while (pos >= 0) {
    const nameEnd = readName(s, pos + 2);
    if (nameEnd - (pos + 2) === name.length && s.slice(pos + 2, nameEnd).toLowerCase() === name) {
      const gt = s.indexOf(">", nameEnd);
      return [pos, gt < 0 ? s.length : gt + 1];
    }
    pos = s.indexOf("</", pos + 2);
  }
  return undefined;
}

export interface InjectedStripOutput {
  /** User text `s[start, end)` that survives. */
  text(s: string, start: number, end: number): void;
  /** A removed span. */
  boundary(): void;
}

/**
 * Streams `text` minus injected spans to `out`, then returns the slash-command metadata line
 * ("" when there was no command).
 */
export function stripInjectedContext(text: string, out: InjectedStripOutput): string {
  const n = text.length;
  let textStart = 0;
  let command: string | undefined;
  let args: string | undefined;

  let lead = 0;
  while (lead < n && isBlank(text.charCodeAt(lead))) lead++;
  if (text.slice(lead, lead + AGENTS_HEADING.length).toLowerCase() === AGENTS_HEADING) {
    const eol = text.indexOf("\n", lead);
    textStart = eol < 0 ? n : eol + 1;
  }

  let i = textStart;
  while (i < n) {
    const j = text.indexOf("<", i);
    if (j < 0) break;
    const nameEnd = readName(text, j + 1);
    const name = text.slice(j + 1, Math.min(nameEnd, j + 41)).toLowerCase();
    const next = nameEnd < n ? text.charCodeAt(nameEnd) : -1;
    if (!INJECTED_TAGS.has(name) || !(next === 62 || isBlank(next))) {
      i = j + 1;
      continue;
    }
    if (j > textStart) out.text(text, textStart, j);
    out.boundary();
    const openEnd = text.indexOf(">", nameEnd);
    if (openEnd < 0) {
      textStart = n;
      break;
    }
    const close = findClose(text, openEnd + 1, name);
    const bodyEnd = close ? close[0] : n;
    if (name === "command-name" && command === undefined) {
      command = text.slice(openEnd + 1, Math.min(bodyEnd, openEnd + 1 + COMMAND_MAX_CHARS * 4));
    } else if (name === "command-args" && args === undefined) {
      args = text.slice(openEnd + 1, Math.min(bodyEnd, openEnd + 1 + COMMAND_MAX_CHARS * 4));
    }
    if (!close) {
      textStart = n;
      break;
    }
    i = textStart = close[1];
  }
  if (textStart < n) out.text(text, textStart, n);

  return command === undefined ? "" : commandLine(command, args ?? "");
}

/** A slash command as one short metadata line, `[command: /name args]` ("" when it is blank). */
export function commandLine(name: string, args: string): string {
  const cmd = shortValue(`${name} ${args}`, COMMAND_MAX_CHARS);
  return cmd ? `[command: ${cmd}]` : "";
}

/**
 * Where a text cut out of a longer one (a preview's tail) may start when the cut fell inside an
 * injected span: just after the first injected closing tag that no injected opening precedes;
 * 0 when there is none.
 */
export function afterOrphanClose(text: string): number {
  let i = text.indexOf("<");
  while (i >= 0) {
    const closing = text.charCodeAt(i + 1) === 47; /* / */
    const nameStart = closing ? i + 2 : i + 1;
    const nameEnd = readName(text, nameStart);
    const name = text.slice(nameStart, Math.min(nameEnd, nameStart + 40)).toLowerCase();
    const next = nameEnd < text.length ? text.charCodeAt(nameEnd) : -1;
    if (INJECTED_TAGS.has(name) && (next === 62 || isBlank(next))) {
      if (!closing) return 0;
      const gt = text.indexOf(">", nameEnd);
      return gt < 0 ? text.length : gt + 1;
    }
    i = text.indexOf("<", i + 1);
  }
  return 0;
}
