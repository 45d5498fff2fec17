/**
 * XML/HTML character references as they appear in Dyad messages. Writers escape bodies and
 * attributes (`&lt; &gt; &quot; &amp;`), and text can be escaped more than once, so a tag may
 * arrive as `<dyad-write>`, `&lt;dyad-write&gt;` or `&amp;lt;dyad-write&amp;gt;`. The
 * projection treats all of these as markup (fail closed) up to MAX_ESCAPE_LEVEL.
 */

/** Deepest escaping recognised as markup: `&amp;amp;lt;` is level 3. Deeper chains are text. */
export const MAX_ESCAPE_LEVEL = 3;

/** Result slots written by `readEntity` (avoids allocating one object per `&`). */
export interface EntityResult {
  /** Decoded code point, or -1 when no reference was recognised. */
  code: number;
  /** Index just after the reference's `;`. */
  end: number;
}

/**
 * Reads one character reference body at `pos` (the text after `&`): `lt;`, `#60;`, `#x3C;`...
 * Names are case-insensitive; the `;` is required. Writes into `out`.
 */
export function readEntityBody(s: string, pos: number, out: EntityResult): void {
  out.code = -1;
  out.end = pos;
  const n = s.length;
  if (pos >= n) return;
  if (s.charCodeAt(pos) === 35 /* # */) {
    let p = pos + 1;
    let hex = false;
    if (p < n && (s.charCodeAt(p) | 0x20) === 120 /* x */) {
      hex = true;
      p++;
    }
    const digitsStart = p;
    let value = 0;
    while (p < n && p - digitsStart < 8) {
      const c = s.charCodeAt(p);
      let d: number;
      if (c >= 48 && c <= 57) d = c - 48;
      else if (hex && (c | 0x20) >= 97 && (c | 0x20) <= 102) d = (c | 0x20) - 87;
      else break;
      value = value * (hex ? 16 : 10) + d;
      p++;
    }
    if (p === digitsStart || p >= n || s.charCodeAt(p) !== 59 /* ; */) return;
    if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return;
    out.code = value;
    out.end = p + 1;
    return;
  }
  // Named references (lt gt amp quot apos), case-insensitive, without allocating.
  const c0 = s.charCodeAt(pos) | 0x20;
  let code = -1;
  let len = 0;
  if (c0 === 108 /* l */ || c0 === 103 /* g */) {
    if (pos + 2 < n && (s.charCodeAt(pos + 1) | 0x20) === 116 /* t */) {
      code = c0 === 108 ? 60 : 62;
      len = 2;
    }
  } else if (c0 === 97 /* a */) {
    if (matchLower(s, pos + 1, "mp")) {
      code = 38;
      len = 3;
    } else if (matchLower(s, pos + 1, "pos")) {
      code = 39;
      len = 4;
    }
  } else if (c0 === 113 /* q */ && matchLower(s, pos + 1, "uot")) {
    code = 34;
    len = 4;
  }
  if (code < 0 || pos + len >= n || s.charCodeAt(pos + len) !== 59 /* ; */) return;
  out.code = code;
  out.end = pos + len + 1;
}

function matchLower(s: string, at: number, word: string): boolean {
  if (at + word.length > s.length) return false;
  for (let k = 0; k < word.length; k++) {
    if ((s.charCodeAt(at + k) | 0x20) !== word.charCodeAt(k)) return false;
  }
  return true;
}

/** Result of reading an `&amp;`-chain that ends in a character reference. */
export interface EntityChain {
  /** Final decoded code point after `level` decodings, or -1. */
  code: number;
  /** How many decodings produce `code` (1 for `&lt;`, 2 for `&amp;lt;`). */
  level: number;
  /** Index after the whole chain. */
  end: number;
  /** Code point and end of the first reference alone (one level of decoding). */
  firstCode: number;
  firstEnd: number;
}

const scratch: EntityResult = { code: -1, end: 0 };

/**
 * Reads the reference chain starting at the `&` at `amp`: `&` then zero or more `amp;` bodies
 * then a final body. `&amp;lt;` yields code `<` at level 2. Stops at MAX_ESCAPE_LEVEL.
 */
export function readEntityChain(s: string, amp: number, out: EntityChain): void {
  out.code = -1;
  out.level = 0;
  out.end = amp + 1;
  out.firstCode = -1;
  out.firstEnd = amp + 1;
  let pos = amp + 1;
  for (let level = 1; level <= MAX_ESCAPE_LEVEL; level++) {
    readEntityBody(s, pos, scratch);
    if (scratch.code < 0) return;
    if (level === 1) {
      out.firstCode = scratch.code;
      out.firstEnd = scratch.end;
    }
    out.code = scratch.code;
    out.level = level;
    out.end = scratch.end;
    if (scratch.code !== 38 /* & */) return;
    pos = scratch.end;
  }
}

/** Decodes every character reference in `s` once (used on short attribute text only). */
export function decodeEntitiesOnce(s: string): string {
  if (s.indexOf("&") < 0) return s;
  let out = "";
  let from = 0;
  let i = s.indexOf("&");
  while (i >= 0) {
    readEntityBody(s, i + 1, scratch);
    if (scratch.code >= 0) {
      out += s.slice(from, i) + String.fromCodePoint(scratch.code);
      from = scratch.end;
      i = s.indexOf("&", scratch.end);
    } else {
      i = s.indexOf("&", i + 1);
    }
  }
  return out + s.slice(from);
}
