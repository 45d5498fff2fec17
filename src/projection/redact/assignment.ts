import { MARKER_PREFIX, redactionMarker, type Detector } from "./detector.js";

/**
 * The secret-assignment detector: a value given to a name that says it is secret, in the forms
 * transcripts hold — `DB_PASSWORD=hunter2` (env files, shell), `"api_key": "…"` (JSON, also
 * JSON-escaped inside another string), `password: s3cr3t!` (YAML), `token = '…'` (code),
 * `--password hunter2` (command lines). Only the value is replaced; the name stays searchable.
 *
 * The name must end with one of SECRET_NAME_WORDS (`GITHUB_TOKEN`, `clientSecret`, `MYSQL_PWD`),
 * so `max_tokens`, `token_count`, `passwordHash` and `secretary` are left alone. Values that are
 * not secrets are left alone too (NOT_A_SECRET): numbers, booleans, null, placeholders
 * (`${TOKEN}`, `<your-key>`, `{{ secrets.X }}`, `***`), paths (`PWD=/home/me`), code
 * (`token = getToken()`, `password = req.body.password`), and after `:` or a spaced `=` a bare
 * word (`password: str`, `token = newToken`, "the secret: ship on Monday").
 */
export const SECRET_NAME_WORDS = [
  "secret[-_]?key[-_]?base",
  "client[-_]?secret",
  "secret[-_]?key",
  "access[-_]?key",
  "private[-_]?key",
  "api[-_]?key",
  "password",
  "passwd",
  "passphrase",
  "pwd",
  "secret",
  "token",
  "credentials?",
] as const;

const WORDS = SECRET_NAME_WORDS.join("|");
/** A name that ends with one of the words (tested on the last NAME_WINDOW characters before a separator). */
const NAME_END = new RegExp(`(?:${WORDS})$`, "i");
const NAME_WINDOW = 24;
/** The last letters of the words, either case: most names before a separator end otherwise. */
const LAST_LETTER = new Uint8Array(128);
for (const ch of "detnysl") LAST_LETTER[ch.charCodeAt(0)] = LAST_LETTER[ch.toUpperCase().charCodeAt(0)] = 1;
/** Characters that end a bare value (blanks, quotes, and punctuation around a value). */
const BARE_STOP = new Uint8Array(128);
for (const ch of " \t\r\n\f\v\"'`\\;,&()[]{}<>|") BARE_STOP[ch.charCodeAt(0)] = 1;
/** Characters a quoted value stops at (its closing quote, an escape, a line break). */
const QUOTED_STOP = new Uint8Array(128);
for (const ch of "\"'\\\r\n") QUOTED_STOP[ch.charCodeAt(0)] = 1;
const MAX_VALUE_CHARS = 256;
const BACKTICK = "`";

const isBlank = (c: number) => c === 32 || c === 9;
const isQuote = (c: number) => c === 34 || c === 39;

interface Assignment {
  /** Where the value starts and ends in the text. */
  start: number;
  end: number;
  quoted: boolean;
  /** `:` or a spaced `=` (how prose and code write things too) rather than a tight `=`. */
  loose: boolean;
}

/**
 * The assignment whose separator (`=`, `:` or `:=`) is at `k`, when the name before it ends with
 * a secret word: `name`, an optional (escaped) quote, blanks, the separator, blanks, then the
 * value — quoted (up to its closing quote) or bare. Null otherwise.
 */
function assignmentAt(text: string, k: number): Assignment | null {
  const c = text.charCodeAt(k);
  const next = text.charCodeAt(k + 1);
  const previous = k > 0 ? text.charCodeAt(k - 1) : 0;
  let valueFrom: number;
  if (c === 58 /* : */) {
    if (next === 58 || next === 47 || previous === 58) return null; // `::`, `://`
    valueFrom = next === 61 ? k + 2 : k + 1;
  } else {
    // `==`, `=>`, `=~`; `!=`, `<=`, `>=`, `+=`…, and the `=` of `:=` (judged at its `:`).
    if (next === 61 || next === 62 || next === 126) return null;
    if (previous > 0 && "=!<>:+-*/%&|^".includes(String.fromCharCode(previous))) return null;
    valueFrom = k + 1;
  }
  let j = k - 1;
  let spaced = false;
  while (j >= 0 && isBlank(text.charCodeAt(j))) {
    j--;
    spaced = true;
  }
  if (j >= 0 && isQuote(text.charCodeAt(j))) {
    j--;
    if (j >= 0 && text.charCodeAt(j) === 92 /* \ */) j--;
  }
  const nameEnd = j + 1;
  const last = text.charCodeAt(j);
  if (j < 0 || last >= 128 || LAST_LETTER[last] !== 1) return null;
  if (!NAME_END.test(text.slice(Math.max(0, nameEnd - NAME_WINDOW), nameEnd))) return null;

  let p = valueFrom;
  while (p < text.length && isBlank(text.charCodeAt(p))) {
    p++;
    spaced = true;
  }
  const loose = c === 58 || spaced;
  let quote = text.charCodeAt(p);
  if (quote === 92 /* \ */ && isQuote(text.charCodeAt(p + 1))) quote = text.charCodeAt(++p);
  if (isQuote(quote)) {
    const start = p + 1;
    let end = start;
    const limit = Math.min(text.length, start + MAX_VALUE_CHARS);
    while (end < limit) {
      const d = text.charCodeAt(end);
      if (d < 128 && QUOTED_STOP[d] === 1) break;
      end++;
    }
    // Its closing quote (or the escaped one) must follow: `"Password: ")` has none.
    const closing = text.charCodeAt(end) === 92 ? text.charCodeAt(end + 1) : text.charCodeAt(end);
    if (end === start || closing !== quote) return null;
    return { start, end, quoted: true, loose };
  }
  const start = p;
  let end = start;
  const limit = Math.min(text.length, start + MAX_VALUE_CHARS);
  while (end < limit) {
    const d = text.charCodeAt(end);
    if (d < 128 && BARE_STOP[d] === 1) break;
    end++;
  }
  return end === start ? null : { start, end, quoted: false, loose };
}

// Groups: 1 a value's opening quote, 2 the quoted value, 3 a bare value.
const FLAG = new RegExp(
  String.raw`(?<![\w-])--(?:${WORDS}|pass)[ \t]+` +
    String.raw`(?:(["'])([^"'\\\r\n]{1,256})(?=\1)|(?!-)([^\s"'${BACKTICK}\\;|&<>()[\]]{1,256}))`,
  "gi",
);

const LITERAL = /^(?:true|false|null|none|nil|undefined|yes|no|on|off|-?\d+(?:\.\d+)?)$/i;
const PLACEHOLDER_START = /^(?:[$%{<[*#@/~]|\.\.?\/|\\)/;
const MASKED = /^(?:\*+|x+|X+|\.+|-+)$/;
const MEMBER_PATH = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
const BARE_WORD = /^[A-Za-z_]+$/;

/**
 * Whether a value given to a secret-named name is something other than a secret. `next` is the
 * character after a bare value: `(` or `[` after a word makes it code (`getToken()`, `tokens[0]`).
 */
function notASecret(value: string, quoted: boolean, looseSeparator: boolean, next: string): boolean {
  if (value.length === 0 || value.startsWith(MARKER_PREFIX)) return true;
  if (MASKED.test(value) || PLACEHOLDER_START.test(value)) return true;
  if (quoted) return false;
  if (LITERAL.test(value) || MEMBER_PATH.test(value)) return true;
  if ((next === "(" || next === "[") && BARE_WORD.test(value)) return true;
  return looseSeparator && BARE_WORD.test(value);
}

export const secretAssignmentDetector: Detector = {
  name: "secret-assignment",
  redact(text, allowed) {
    const marker = redactionMarker("secret-assignment");
    // Anchored on separators (indexOf is far cheaper than a regex trying every word everywhere).
    let out = "";
    let last = 0;
    let eq = text.indexOf("=");
    let colon = text.indexOf(":");
    while (eq >= 0 || colon >= 0) {
      const k = colon < 0 || (eq >= 0 && eq < colon) ? eq : colon;
      const found = assignmentAt(text, k);
      let resume = k + 1;
      if (found && found.start >= last) {
        const value = text.slice(found.start, found.end);
        const next = text.charAt(found.end);
        if (!allowed.has(value) && !notASecret(value, found.quoted, found.loose, next)) {
          out += text.slice(last, found.start) + marker;
          last = found.end;
          resume = Math.max(resume, found.end);
        }
      }
      if (eq >= 0 && eq < resume) eq = text.indexOf("=", resume);
      if (colon >= 0 && colon < resume) colon = text.indexOf(":", resume);
    }
    const assigned = last === 0 ? text : out + text.slice(last);
    if (!assigned.includes("--")) return assigned;
    FLAG.lastIndex = 0;
    const flagged = (
      match: string,
      _quote: string | undefined,
      quotedValue: string | undefined,
      bareValue: string | undefined,
      offset: number,
      whole: string,
    ) => {
      const quoted = quotedValue !== undefined;
      const value = quoted ? quotedValue : (bareValue ?? "");
      if (allowed.has(value) || notASecret(value, quoted, false, whole.charAt(offset + match.length)))
        return match;
      return match.slice(0, match.length - value.length) + marker;
    };
    return assigned.replace(FLAG, flagged);
  },
};
