import { redactionMarker, type Detector } from "./detector.js";

/**
 * The private-key detector: a PEM or OpenSSH private key block, `-----BEGIN … PRIVATE KEY-----`
 * through its `-----END … PRIVATE KEY-----` line, with real or JSON-escaped (`\n`) line breaks.
 *
 * A block counts only when base64 key material follows its BEGIN line (40 characters, after at
 * most a few `Proc-Type:`-style header lines), so code that merely names the header is left
 * alone. A block with no END (a projection's head cut it) is redacted to the end of the text;
 * key lines before an END whose BEGIN was cut away (a projection's tail) are redacted with it.
 */
const LINE_BREAK = String.raw`(?:\\[rn]|\s)`;
const LABEL = "[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----";
const HEADER_LINE = String.raw`[A-Za-z-]{1,40}: [^\n\\]{0,200}`;

const BLOCK = new RegExp(
  `-----BEGIN${LABEL}` +
    `(?=${LINE_BREAK}{1,4}(?:${HEADER_LINE}${LINE_BREAK}{1,4}){0,4}[A-Za-z0-9+/=]{40})` +
    `[\\s\\S]*?(?:-----END${LABEL}|$)`,
  "g",
);
const END = new RegExp(`-----END${LABEL}`, "g");

const BASE64 = new Uint8Array(128);
for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
  BASE64[ch.charCodeAt(0)] = 1;

/**
 * Where the key lines before `end` start: whole lines of base64, separated by real or escaped
 * (`\n`) line breaks, walking back to a line that holds anything else (that line stays; a line
 * cut by the start of the text counts). Returns that start and how many base64 characters lie
 * between it and `end`.
 */
function keyLinesBefore(text: string, end: number): { start: number; material: number } {
  let i = end;
  /** Just after the last line break crossed: where the lines known to be whole key lines start. */
  let lineStart = end;
  for (;;) {
    if (i === 0) {
      lineStart = 0;
      break;
    }
    const c = text.charCodeAt(i - 1);
    if ((c === 110 || c === 114) /* n r */ && i > 1 && text.charCodeAt(i - 2) === 92 /* \ */) {
      lineStart = i;
      i -= 2;
    } else if (c === 10 || c === 13) {
      lineStart = i;
      i--;
    } else if (c < 128 && BASE64[c] === 1) i--;
    else break;
  }
  let start = lineStart;
  // The span starts at the first key character: line breaks before it stay.
  for (;;) {
    const c = text.charCodeAt(start);
    if (c === 10 || c === 13) start++;
    else if (c === 92 && (text.charCodeAt(start + 1) === 110 || text.charCodeAt(start + 1) === 114))
      start += 2;
    else break;
  }
  let material = 0;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 128 && BASE64[c] === 1) material++;
  }
  return { start: Math.min(start, end), material };
}

export const privateKeyDetector: Detector = {
  name: "private-key",
  redact(text) {
    if (!text.includes("PRIVATE KEY")) return text;
    const marker = redactionMarker("private-key");
    BLOCK.lastIndex = 0;
    const blocks = text.replace(BLOCK, marker);
    if (!blocks.includes("-----END")) return blocks;
    // An END whose block began before the text did: its key lines go with it.
    let out = "";
    let last = 0;
    END.lastIndex = 0;
    for (let m = END.exec(blocks); m !== null; m = END.exec(blocks)) {
      const { start, material } = keyLinesBefore(blocks, m.index);
      if (material < 40 || start < last) continue;
      out += blocks.slice(last, start) + marker;
      last = m.index + m[0].length;
    }
    return last === 0 ? blocks : out + blocks.slice(last);
  },
};
