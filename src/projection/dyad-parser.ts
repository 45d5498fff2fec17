import { decodeEntitiesOnce, readEntityChain, type EntityChain } from "./entities.js";

/**
 * A single-pass scanner over assistant message content that finds Dyad markup the way Dyad's
 * streamingMessageParser does, but fails closed wherever that parser would let payload text
 * through as prose (a payload body must never leak). It never copies the input: prose is
 * reported as index ranges, linear in the content length. The rules, Dyad's and the
 * fail-closed differences: docs/sources/dyad.md, "The markup scanner".
 */

export interface DyadTagOpening {
  /** Lower-cased tag name (at most MAX_NAME_CHARS characters). */
  name: string;
  /** 0 for `<`, 1 for `&lt;`, 2 for `&amp;lt;`... */
  level: number;
  /** False when no `>` ends the opening tag: the rest of the message is dropped. */
  terminated: boolean;
  /** `name="value"` attributes (Dyad semantics), values unescaped. Empty when unterminated. */
  attributes: ReadonlyMap<string, string>;
  /**
   * True when the whole attribute text is a clean sequence of `name="value"` pairs (optionally
   * ending in `/`). A `>` inside a quoted value, stray quotes, or junk make it false: a body kept
   * by policy is then treated as a payload, since its "body" may be the rest of an attribute.
   */
  wellFormed: boolean;
}

export interface DyadScanHandler {
  /**
   * Prose: `s[start, end)`, with its character references still encoded (`&amp;`); the
   * consumer decodes them once. Never contains markup: spans end where a tag starts.
   */
  text(s: string, start: number, end: number): void;
  /** A tag opened; the handler emits what it wants and says whether its body is kept. */
  openTag(tag: DyadTagOpening): "keep" | "suppress";
  /** Markup was removed here (a closing tag, a suppressed body). */
  boundary(): void;
}

export const MAX_NAME_CHARS = 128;
/** Attribute text longer than this is not parsed past this point, and is not well-formed. */
export const MAX_ATTRIBUTE_TEXT = 8192;
/** Open tags tracked inside a suppressed body before the rest is dropped. */
export const MAX_REGION_DEPTH = 64;

const NAME_CHAR = new Uint8Array(128);
for (let c = 48; c <= 57; c++) NAME_CHAR[c] = 1;
for (let c = 65; c <= 90; c++) NAME_CHAR[c] = 1;
for (let c = 97; c <= 122; c++) NAME_CHAR[c] = 1;
NAME_CHAR[45] = 1; // -
NAME_CHAR[46] = 1; // .
NAME_CHAR[58] = 1; // :
NAME_CHAR[95] = 1; // _

const NO_ATTRIBUTES: ReadonlyMap<string, string> = new Map();
const WELL_FORMED = /^(?:\s+[\w-]+="[^"]*")*\s*(?:\/\s*)?$/;
const ATTRIBUTE = /([\w-]+)="([^"]*)"/g;

const LT = 60;
const GT = 62;
const SLASH = 47;

function readName(s: string, p: number): number {
  const n = s.length;
  while (p < n) {
    const c = s.charCodeAt(p);
    if (c >= 128 || NAME_CHAR[c] !== 1) break;
    p++;
  }
  return p;
}

function lowerName(s: string, start: number, end: number): string {
  return s.slice(start, Math.min(end, start + MAX_NAME_CHARS)).toLowerCase();
}

/** True when `word` (lower-case ASCII) is at `start`, case-insensitively. */
function hasWordAt(s: string, start: number, end: number, word: string): boolean {
  if (end - start < word.length) return false;
  for (let k = 0; k < word.length; k++) {
    if ((s.charCodeAt(start + k) | 0x20) !== word.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * Whether the name at `[start, end)` is markup (never prose): it starts with `dyad`, or is
 * `think` or `thinking`, in any letter case. Known or not: dyad-tag-policy decides what each
 * keeps. Checked on char codes, so ordinary `<b>`, `<div>`, `a < b` cost nothing.
 */
function isCandidate(s: string, start: number, end: number): boolean {
  const len = end - start;
  if (len < 4) return false;
  const first = s.charCodeAt(start) | 0x20;
  if (first === 100 /* d */) return hasWordAt(s, start, end, "dyad");
  if (first === 116 /* t */) {
    return (len === 5 || len === 8) && hasWordAt(s, start, end, len === 5 ? "think" : "thinking");
  }
  return false;
}

/** Case-insensitive equality of the ASCII names at `a` and `b`, both `len` long. */
function sameName(s: string, a: number, b: number, len: number): boolean {
  for (let k = 0; k < len; k++) {
    if ((s.charCodeAt(a + k) | 0x20) !== (s.charCodeAt(b + k) | 0x20)) return false;
  }
  return true;
}

/**
 * Open tags inside a suppressed body, as positions of their names in the content (no strings):
 * name start, name length (-1 for an over-long name, which nothing closes) and escape level.
 */
class TagStack {
  private readonly starts = new Int32Array(MAX_REGION_DEPTH);
  private readonly lengths = new Int32Array(MAX_REGION_DEPTH);
  private readonly levels = new Int32Array(MAX_REGION_DEPTH);
  size = 0;

  constructor(private readonly s: string) {}

  clear(): void {
    this.size = 0;
  }

  /** Pushes the name starting at `start` (its end found by reading name characters). False when full. */
  push(start: number, level: number): boolean {
    if (this.size >= MAX_REGION_DEPTH) return false;
    const len = readName(this.s, start) - start;
    this.starts[this.size] = start;
    this.lengths[this.size] = len > MAX_NAME_CHARS ? -1 : len;
    this.levels[this.size] = level;
    this.size++;
    return true;
  }

  /** Copies `other`'s entries on top; false when full. */
  pushAll(other: TagStack): boolean {
    for (let k = 0; k < other.size; k++) {
      if (this.size >= MAX_REGION_DEPTH) return false;
      this.starts[this.size] = other.starts[k]!;
      this.lengths[this.size] = other.lengths[k]!;
      this.levels[this.size] = other.levels[k]!;
      this.size++;
    }
    return true;
  }

  /** Removes the topmost entry with this name and level; false when there is none. */
  remove(start: number, len: number, level: number): boolean {
    for (let k = this.size - 1; k >= 0; k--) {
      if (
        this.levels[k] === level &&
        this.lengths[k] === len &&
        sameName(this.s, this.starts[k]!, start, len)
      ) {
        this.starts.copyWithin(k, k + 1, this.size);
        this.lengths.copyWithin(k, k + 1, this.size);
        this.levels.copyWithin(k, k + 1, this.size);
        this.size--;
        return true;
      }
    }
    return false;
  }
}

export function parseDyadAttributes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  ATTRIBUTE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ATTRIBUTE.exec(text)) !== null) {
    out.set(m[1]!, decodeEntitiesOnce(m[2]!));
  }
  return out;
}

/** Scans `content`, reporting prose, tags and removed spans to `handler`. */
export function scanDyadContent(content: string, handler: DyadScanHandler): void {
  new Scanner(content, handler).run();
}

class Scanner {
  private readonly n: number;
  private readonly chain: EntityChain = { code: -1, level: 0, end: 0, firstCode: -1, firstEnd: 0 };
  private textStart = 0;

  constructor(
    private readonly s: string,
    private readonly h: DyadScanHandler,
  ) {
    this.n = s.length;
    this.heldOpen = new TagStack(s);
    this.regionStack = new TagStack(s);
  }

  /** Reused by skipRegion (one suppressed body at a time). */
  private readonly regionStack: TagStack;

  // indexOf results for `<` and `&`, shared by every scan: "the first one at or after `from` is at
  // `at`" stays true for any later query between `from` and `at`, so no stretch of the content is
  // searched twice (a fresh indexOf per suppressed body would be quadratic).
  private ltFrom = -1;
  private ltAt = -1;
  private ampFrom = -1;
  private ampAt = -1;

  /** Index of the first `<` at or after `pos`, or -1. */
  private nextLt(pos: number): number {
    if (this.ltFrom < 0 || pos < this.ltFrom || (this.ltAt >= 0 && pos > this.ltAt)) {
      this.ltFrom = pos;
      this.ltAt = this.s.indexOf("<", pos);
    }
    return this.ltAt;
  }

  /** Index of the first `&` at or after `pos`, or -1. */
  private nextAmp(pos: number): number {
    if (this.ampFrom < 0 || pos < this.ampFrom || (this.ampAt >= 0 && pos > this.ampAt)) {
      this.ampFrom = pos;
      this.ampAt = this.s.indexOf("&", pos);
    }
    return this.ampAt;
  }

  private flush(to: number): void {
    if (to > this.textStart) this.h.text(this.s, this.textStart, to);
  }

  run(): void {
    const { s, n, chain } = this;
    let i = 0;
    while (i < n) {
      // The next `<` or `&`: a short manual scan first (markup-dense prose), then indexOf.
      let j = -1;
      const near = Math.min(n, i + 32);
      for (let k = i; k < near; k++) {
        const c = s.charCodeAt(k);
        if (c === LT || c === 38) {
          j = k;
          break;
        }
      }
      if (j < 0) {
        const lt = this.nextLt(i);
        const amp = this.nextAmp(i);
        if (lt < 0 && amp < 0) break;
        j = lt < 0 ? amp : amp < 0 ? lt : Math.min(lt, amp);
      }

      let level = 0;
      let afterLt = j + 1;
      if (s.charCodeAt(j) !== LT) {
        readEntityChain(s, j, chain);
        if (chain.code !== LT) {
          // A character reference or a lone `&` in prose: text (the consumer decodes it).
          i = j + 1;
          continue;
        }
        level = chain.level;
        afterLt = chain.end;
      }

      let p = afterLt;
      const closing = p < n && s.charCodeAt(p) === SLASH;
      if (closing) p++;
      const nameEnd = readName(s, p);
      if (!isCandidate(s, p, nameEnd)) {
        // Not markup: the `<` (or its escaped form) is prose.
        i = j + 1;
        continue;
      }

      if (!closing && !this.endsOpeningName(nameEnd)) {
        // `<dyad-write"…`: not a tag for Dyad either (a name needs a blank, `>` or `/` after it).
        i = j + 1;
        continue;
      }

      this.flush(j);
      if (closing) {
        // A closing tag in prose or in a kept body: removed.
        i = this.textStart = this.closingTagEnd(nameEnd, level);
        this.h.boundary();
        continue;
      }

      const name = lowerName(s, p, nameEnd);
      const term = this.openingEnd(nameEnd, level);
      if (term < 0) {
        this.h.openTag({
          name,
          level,
          terminated: false,
          attributes: new Map(),
          wellFormed: false,
        });
        this.textStart = n;
        return;
      }
      const termEnd = this.termEnd;
      const rawLength = term - nameEnd;
      let decision: "keep" | "suppress";
      if (rawLength === 0) {
        // `<name>`: no attributes (the common case; no parsing needed).
        decision = this.h.openTag({
          name,
          level,
          terminated: true,
          attributes: NO_ATTRIBUTES,
          wellFormed: !this.cutByOuter,
        });
      } else {
        let attrText = s.slice(nameEnd, nameEnd + Math.min(rawLength, MAX_ATTRIBUTE_TEXT));
        for (let k = 0; k < level; k++) attrText = decodeEntitiesOnce(attrText);
        const wellFormed = !this.cutByOuter && rawLength <= MAX_ATTRIBUTE_TEXT && WELL_FORMED.test(attrText);
        decision = this.h.openTag({
          name,
          level,
          terminated: true,
          attributes: parseDyadAttributes(attrText),
          wellFormed,
        });
      }
      i = this.textStart = termEnd;
      // A suppressed tag's body always goes, `/>` or not: Dyad's parser reads `/` as attribute
      // text, so `<think />…</think>` and `<dyad-write … />code` have bodies up to the matching
      // close or the end of the message (docs/sources/dyad.md, "What of a message is kept").
      if (decision === "suppress") {
        i = this.textStart = this.skipRegion(termEnd, p, level, this.heldOpen, this.ignoreClosesUntil);
        this.h.boundary();
      }
    }
    this.flush(n);
  }

  /** Set by openingEnd: where the body starts (after the terminating `>`). */
  private termEnd = 0;
  /** Set by openingEnd: the opening is malformed (cut short, or a `>` inside a quoted value). */
  private cutByOuter = false;

  /** True when a candidate tag name starts at `p` (after a `/` too, when `closing` is allowed). */
  private candidateAt(p: number, closing: boolean): boolean {
    const { s, n } = this;
    if (p < n && s.charCodeAt(p) === SLASH) {
      if (!closing) return false;
      p++;
    }
    const nameEnd = readName(s, p);
    return isCandidate(s, p, nameEnd) && (closing || this.endsOpeningName(nameEnd));
  }

  /**
   * True when the character at `p` can follow the name of an opening tag: a blank or control
   * character, `>`, `/`, the end of the content, or a reference to `>` or a blank. (Dyad needs
   * a blank or `>`; `/` and references are accepted too, failing closed.)
   */
  private endsOpeningName(p: number): boolean {
    const { s, n, chain } = this;
    if (p >= n) return true;
    const c = s.charCodeAt(p);
    if (c <= 0x20 || c === GT || c === SLASH) return true;
    if (c !== 38) return false;
    readEntityChain(s, p, chain);
    return chain.code === GT || (chain.code >= 0 && chain.code <= 0x20);
  }

  /**
   * Where the attribute text of an opening tag whose `<` is at `level` ends: at the first `>`
   * written at any level up to `level` (a raw `>` always ends it, as in Dyad); -1 if none.
   * `termEnd` is set to where the body starts, `cutByOuter` when the opening is malformed.
   *
   * Fail-closed refinements:
   * - outside quotes, the opening is cut short where another opening tag starts at a level up
   *   to its own (`<dyad-status <dyad-write>…`): that is a half-typed opening followed by a real
   *   tag, which must not vanish into attribute text. (A closing tag does not cut it: that
   *   would close the tag at once and expose what follows.)
   * - when that first `>` sits inside a quoted value (`"…"` or `'…'`, raw or escaped at a level
   *   up to the tag's), or an opening tag appears inside a quoted value, two readings exist:
   *   Dyad's (the tag ends at the first `>`) and XML's (values run on to the first `>` outside
   *   quotes). The projection covers both: attributes are read only up to the first `>` (so a
   *   value never runs on into body text), the suppressed body starts there, the openings inside
   *   quoted values are held open (`heldOpen`), and no closing tag counts before the XML end of
   *   this tag and of the held ones (`ignoreClosesUntil`). Without a `>` outside quotes within
   *   MAX_ATTRIBUTE_TEXT the opening is unterminated.
   */
  private openingEnd(from: number, level: number): number {
    const { s, n, chain } = this;
    this.cutByOuter = false;
    this.heldOpen.clear();
    this.ignoreClosesUntil = -1;
    const held: number[] = [];
    let open = 0;
    let term = -1;
    for (let j = from; j < n; j++) {
      const c = s.charCodeAt(j);
      let gtEnd = -1;
      let ltAt = -1;
      let ltLevel = 0;
      if (c === 34 || c === 39) {
        if (open === 0) open = c;
        else if (open === c) open = 0;
        continue;
      } else if (c === GT) {
        gtEnd = j + 1;
      } else if (c === LT) {
        ltAt = j + 1;
      } else if (c === 38 && level > 0) {
        readEntityChain(s, j, chain);
        if (chain.level > level) continue;
        if (chain.code === 34 || chain.code === 39) {
          if (open === 0) open = chain.code;
          else if (open === chain.code) open = 0;
          j = chain.end - 1;
          continue;
        }
        if (chain.code === GT) gtEnd = chain.end;
        else if (chain.code === LT) {
          ltAt = chain.end;
          ltLevel = chain.level;
        }
      } else {
        continue;
      }
      if (gtEnd >= 0) {
        term = j;
        this.termEnd = gtEnd;
        break;
      }
      if (ltAt >= 0 && this.candidateAt(ltAt, false)) {
        if (open === 0) {
          this.cutByOuter = true;
          this.termEnd = j;
          return j;
        }
        if (held.length >= 2 * MAX_REGION_DEPTH) return -1;
        held.push(ltAt, ltLevel);
      }
    }
    if (term < 0) return -1;
    if (open === 0 && held.length === 0) return term;

    this.cutByOuter = true;
    let until = this.termEnd;
    if (open !== 0) {
      until = this.quotedEnd(this.termEnd, from + MAX_ATTRIBUTE_TEXT, level, open);
      if (until < 0) return -1;
    }
    for (let k = 0; k < held.length; k += 2) {
      const at = held[k]!;
      const lvl = held[k + 1]!;
      if (!this.heldOpen.push(at, lvl)) return -1;
      const end = this.nestedOpeningEnd(readName(s, at), lvl, level, this.heldOpen);
      if (end < 0) return -1;
      until = Math.max(until, end);
    }
    this.ignoreClosesUntil = until;
    return term;
  }

  /** Set by openingEnd: openings (`level:name`) the suppressed body must also see closed. */
  private readonly heldOpen: TagStack;
  /** Set by openingEnd: closing tags before this index do not count in the suppressed body. */
  private ignoreClosesUntil = -1;

  /**
   * From inside the quote `open` at `from`: the index after the first `>` (at a level up to
   * `level`) outside quotes, or -1 before `limit`.
   */
  private quotedEnd(from: number, limit: number, level: number, open: number): number {
    const { s, chain } = this;
    const end = Math.min(this.n, limit);
    for (let j = from; j < end; j++) {
      let code = s.charCodeAt(j);
      let next = j + 1;
      if (code === 38 && level > 0) {
        readEntityChain(s, j, chain);
        if (chain.level > level || (chain.code !== 34 && chain.code !== 39 && chain.code !== GT)) continue;
        code = chain.code;
        next = chain.end;
      }
      if (code === 34 || code === 39) {
        if (open === 0) open = code;
        else if (open === code) open = 0;
      } else if (code === GT && open === 0) {
        return next;
      }
      j = next - 1;
    }
    return -1;
  }

  /**
   * Inside a suppressed body, the rest of a nested opening tag (from after its name): returns the
   * index after its first `>` (at a level up to `tagLevel`), pushing onto `stack` every opening
   * tag (at a level up to `regionLevel`) met on the way; closing tags there are attribute text,
   * not closes. -1 (the caller then drops the rest of the message) when that `>` is inside a
   * quoted value, when there is none within MAX_ATTRIBUTE_TEXT, or when the stack overflows.
   */
  private nestedOpeningEnd(from: number, tagLevel: number, regionLevel: number, stack: TagStack): number {
    const { s, chain } = this;
    const end = Math.min(this.n, from + MAX_ATTRIBUTE_TEXT);
    let open = 0;
    for (let j = from; j < end; j++) {
      const c = s.charCodeAt(j);
      let code = c;
      let codeLevel = 0;
      let next = j + 1;
      if (c === 38) {
        readEntityChain(s, j, chain);
        if (chain.code !== 34 && chain.code !== 39 && chain.code !== GT && chain.code !== LT) continue;
        code = chain.code;
        codeLevel = chain.level;
        next = chain.end;
      }
      if (code === 34 || code === 39) {
        if (codeLevel <= tagLevel) {
          if (open === 0) open = code;
          else if (open === code) open = 0;
        }
      } else if (code === GT) {
        if (codeLevel <= tagLevel) {
          // A `>` inside a quoted value: which `>` ends this tag is ambiguous (Dyad's reading and
          // XML's differ), and inside a suppressed body there is no safe way to resume.
          if (open !== 0) return -1;
          return next;
        }
      } else if (code === LT && codeLevel <= regionLevel && this.candidateAt(next, false)) {
        if (!stack.push(next, codeLevel)) return -1;
      }
      j = next - 1;
    }
    return -1;
  }

  /** After `</name`: skips blanks and a `>` at a level up to `level`, if present. */
  private closingTagEnd(pos: number, level: number): number {
    const { s, n, chain } = this;
    let p = pos;
    while (p < n && p - pos < 16 && (s.charCodeAt(p) === 32 || s.charCodeAt(p) === 9)) p++;
    if (p < n && s.charCodeAt(p) === GT) return p + 1;
    if (level > 0 && p < n && s.charCodeAt(p) === 38) {
      readEntityChain(s, p, chain);
      if (chain.code === GT && chain.level <= level) return chain.end;
    }
    return pos;
  }

  /** After `</name`: the index after an exact `>` at exactly `level`, or -1. */
  private exactCloseEnd(pos: number, level: number): number {
    const { s, n, chain } = this;
    if (pos >= n) return -1;
    if (level === 0) return s.charCodeAt(pos) === GT ? pos + 1 : -1;
    if (s.charCodeAt(pos) !== 38) return -1;
    readEntityChain(s, pos, chain);
    return chain.code === GT && chain.level === level ? chain.end : -1;
  }

  /**
   * Skips a suppressed body opened by `key` at `level`; returns the index after its closing
   * tag, or the end of the content when it never closes.
   *
   * Inside the body, tags written at the body's escape level or below nest: each opening is
   * pushed (with its level) and must be closed (exact `</name>` at that level) before the body
   * can end; a closing tag inside a nested opening's quoted attribute value does not count.
   * Tags escaped more deeply than the body are its text. So a nested, interleaved or
   * less-escaped tag inside the body keeps the body open until it is closed too.
   */
  private skipRegion(
    from: number,
    nameStart: number,
    level: number,
    held: TagStack,
    ignoreClosesUntil: number,
  ): number {
    const { s, n, chain } = this;
    const stack = this.regionStack;
    stack.clear();
    stack.push(nameStart, level);
    if (!stack.pushAll(held)) return n;
    let pos = from;
    for (;;) {
      const lt = this.nextLt(pos);
      const amp = level === 0 ? -1 : this.nextAmp(pos);
      if (lt < 0 && amp < 0) return n;
      const j = lt < 0 ? amp : amp < 0 ? lt : Math.min(lt, amp);
      let p: number;
      let tagLevel = 0;
      if (s.charCodeAt(j) === LT) {
        p = j + 1;
      } else {
        readEntityChain(s, j, chain);
        if (chain.code !== LT || chain.level > level) {
          pos = j + 1;
          continue;
        }
        tagLevel = chain.level;
        p = chain.end;
      }
      const closing = p < n && s.charCodeAt(p) === SLASH;
      if (closing) p++;
      const nameEnd = readName(s, p);
      if (!isCandidate(s, p, nameEnd)) {
        pos = Math.max(nameEnd, p);
        continue;
      }
      if (!closing && !this.endsOpeningName(nameEnd)) {
        pos = nameEnd;
        continue;
      }
      if (closing) {
        const end = this.exactCloseEnd(nameEnd, tagLevel);
        if (end < 0 || j < ignoreClosesUntil) {
          pos = end < 0 ? nameEnd : end;
          continue;
        }
        const len = nameEnd - p;
        if (len <= MAX_NAME_CHARS && stack.remove(p, len, tagLevel) && stack.size === 0) return end;
        pos = end;
        continue;
      }
      if (!stack.push(p, tagLevel)) return n;
      const after = this.nestedOpeningEnd(nameEnd, tagLevel, level, stack);
      if (after < 0) return n;
      pos = after;
    }
  }
}
