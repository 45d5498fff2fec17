import type { Projection, ProjectionMode } from "./types.js";
import { readEntityBody, type EntityResult } from "./entities.js";
import { cutHeadToBytes, cutTailToBytes, utf8ByteLength } from "./utf8.js";
import { separateCjk } from "./cjk.js";
import { DEFAULT_REDACTION, type Redaction } from "./redact/index.js";

/**
 * Size bounds of a projection, in UTF-8 bytes of the final text.
 *
 * Search: 16 KiB. Dyad's chat search uses 16,000 characters (head 12,000 + tail 3,000); recall
 * keeps that shape in bytes so the FTS row size is bounded whatever the script. 16 KiB is about
 * 2,500 English words: far above any normal message once payload bodies are gone (so normal
 * messages are never cut), small enough that a pathological paste cannot bloat the index.
 * The head keeps the opening ask, the tail the conclusion; both stay searchable.
 *
 * Read: 32 KiB (head 24 KiB + tail 7 KiB). The read projection is what read_chat and
 * get_conversation return and what the conversation store retains. It is richer (tool and error
 * summaries), and the read tools' whole output budget is about 20 KB, so 32 KiB per record can
 * serve any read window while keeping retained records bounded.
 *
 * When a text is longer than the maximum, the projection is its first HEAD bytes, the marker,
 * and its last TAIL bytes, with `truncated: true`. HEAD + marker + TAIL stays below the maximum.
 */
export const SEARCH_PROJECTION_MAX_BYTES = 16 * 1024;
export const SEARCH_PROJECTION_HEAD_BYTES = 12 * 1024;
export const SEARCH_PROJECTION_TAIL_BYTES = 3 * 1024;
export const READ_PROJECTION_MAX_BYTES = 32 * 1024;
export const READ_PROJECTION_HEAD_BYTES = 24 * 1024;
export const READ_PROJECTION_TAIL_BYTES = 7 * 1024;
/** Placed between head and tail of a truncated projection (19 bytes). */
export const TRUNCATION_MARKER = "\n…[truncated]…\n";

/** Replaces a run of base64 (or the payload of a `;base64,` data URL). */
export const BASE64_PLACEHOLDER = "[base64 omitted]";
/**
 * A run of at least this many base64-alphabet characters (A-Z a-z 0-9 + / = - _) is judged on
 * its first BASE64_WINDOW characters; it is dropped when they look like encoded data: at least 10
 * upper-case letters, 10 lower-case letters and 5 digits, and at most 10 of `+ / = - _`. Paths,
 * kebab-case names, words and hex hashes fail that test; random base64 passes it with near
 * certainty. A run right after `;base64,` is dropped whatever its length.
 */
export const BASE64_WINDOW = 100;

export interface ProjectionBounds {
  maxBytes: number;
  headBytes: number;
  tailBytes: number;
}

/**
 * A fresh sink for `mode`: its bounds, secrets redacted (redact/; the built-in detectors unless
 * the caller passes config.json's), and in search mode CJK characters made separate tokens
 * (cjk.ts).
 */
export function sinkFor(mode: ProjectionMode, redaction: Redaction = DEFAULT_REDACTION): ProjectionSink {
  return new ProjectionSink(boundsFor(mode), { separateCjk: mode === "search", redaction });
}

export function boundsFor(mode: ProjectionMode): ProjectionBounds {
  return mode === "read"
    ? {
        maxBytes: READ_PROJECTION_MAX_BYTES,
        headBytes: READ_PROJECTION_HEAD_BYTES,
        tailBytes: READ_PROJECTION_TAIL_BYTES,
      }
    : {
        maxBytes: SEARCH_PROJECTION_MAX_BYTES,
        headBytes: SEARCH_PROJECTION_HEAD_BYTES,
        tailBytes: SEARCH_PROJECTION_TAIL_BYTES,
      };
}

// Character classes of the base64 alphabet: 1 upper, 2 lower, 3 digit, 4 punctuation.
const B64_CLASS = new Uint8Array(128);
for (let c = 65; c <= 90; c++) B64_CLASS[c] = 1;
for (let c = 97; c <= 122; c++) B64_CLASS[c] = 2;
for (let c = 48; c <= 57; c++) B64_CLASS[c] = 3;
for (const ch of "+/=-_") B64_CLASS[ch.charCodeAt(0)] = 4;

const DATA_URL_PATTERN = ";base64,";
const PATTERN_CODES = Array.from(DATA_URL_PATTERN, (ch) => ch.charCodeAt(0));

/** A write longer than this skips its middle once the head is full (exact; see writeTail). */
const SKIP_MIN_CHARS = 1 << 20;
/** While the head fills, long writes are processed in slices so skipping can start early. */
const HEAD_FILL_SLICE = 1 << 16;
/** Longest character reference decoded (`&#x10FFFF;`). */
const MAX_REFERENCE_CHARS = 12;
/** How far back from its target a resync point is looked for. */
const RESYNC_SCAN_CHARS = 1 << 16;

const NO_BYTES = new Uint8Array(0);
const NO_RUN = new Uint16Array(0);

/**
 * Head buffers of finished sinks, by size, for the next sink: every record makes two sinks
 * (search and read, 16 and 32 KiB), and allocating zeroed buffers for each cost more than
 * projecting a typical turn. A sink takes one on construction and gives it back in finish();
 * an abandoned sink's buffer is simply collected.
 */
const HEAD_POOL = new Map<number, Uint8Array[]>();
const HEAD_POOL_MAX = 8;

function takeHead(size: number): Uint8Array {
  return HEAD_POOL.get(size)?.pop() ?? new Uint8Array(size);
}

function giveHead(buffer: Uint8Array): void {
  let free = HEAD_POOL.get(buffer.length);
  if (!free) HEAD_POOL.set(buffer.length, (free = []));
  if (free.length < HEAD_POOL_MAX) free.push(buffer);
}

/** Run buffers of finished sinks, likewise: a typed array this size lives off the heap, so each costs a malloc and a free. */
const RUN_POOL: Uint16Array[] = [];

function takeRun(): Uint16Array {
  return RUN_POOL.pop() ?? new Uint16Array(BASE64_WINDOW);
}

/** The characters the normaliser treats as blank (spaces, controls, line breaks). */
function isBlank(c: number): boolean {
  return c <= 0x20 || (c >= 0x7f && c <= 0xa0) || c === 0x2028 || c === 0x2029 || isUnicodeBlank(c);
}

const RUN_BUFFERING = 0;
const RUN_PASSTHROUGH = 1;
const RUN_SKIPPING = 2;

/**
 * A streaming text sink: (entity decoding) -> base64 filter -> whitespace normaliser ->
 * head/tail UTF-8 byte collector.
 *
 * Producers feed it index ranges of their input (`write(s, start, end)`), so a 50 MB input is
 * never copied, and memory is fixed whatever the input size: the first `maxBytes` bytes of
 * output, a ring of the last bytes, a 100-character run buffer. Once the head is full, a long
 * write skips its middle exactly (writeTail), so a 50 MB text costs milliseconds. Output rules:
 * - runs of spaces, tabs and other blanks (and control characters) become one space; CR LF and
 *   CR become LF; blanks next to a line break disappear; three or more line breaks become two;
 *   the text is trimmed;
 * - base64-looking runs and data-URL payloads become BASE64_PLACEHOLDER;
 * - lone surrogates become U+FFFD; the result is cut by UTF-8 bytes (see ProjectionBounds)
 *   without splitting a code point, and NFC-normalised when not ASCII (on the bounded output,
 *   never on the input);
 * - with `separateCjk` (search mode), CJK characters are made separate tokens (cjk.ts) on the
 *   bounded output, before the final cut: the separators count against the byte bound, so a
 *   CJK-heavy text may be cut where its read projection is not.
 * - with `redaction`, secrets become `[redacted:<detector>]` (redact/). It runs on the bounded
 *   output (so its cost is bounded whatever the input), on the head and the tail each before
 *   they are cut to their final size: a secret across the final cut is whole in what it sees
 *   (the head keeps `maxBytes - headBytes` more, the ring about 1 KiB more than the tail). A
 *   base64-looking run that holds a long provider key's prefix is kept for it to name.
 */
export class ProjectionSink {
  private readonly maxBytes: number;
  private readonly headBytesCap: number;
  private readonly tailBytesCap: number;

  /** The first `maxBytes` bytes of output, UTF-8 encoded (a pooled buffer: see HEAD_POOL). */
  private head: Uint8Array;
  private headBytes = 0;
  private headFull = false;
  /**
   * The last `ring.length` bytes of output, UTF-8 encoded. Only needed once the head is full
   * (until then the tail is the head's end), so it is allocated and filled then (startRing).
   */
  private ring: Uint8Array = NO_BYTES;
  private readonly ringSize: number;
  private readonly ringMask: number;
  /** Bytes output so far (the ring's write position once it exists). */
  private ringPos = 0;
  /** A high surrogate waiting for its low half (0 when none). */
  private pendingHigh = 0;
  /** Whether any non-ASCII character was output (NFC is skipped for pure ASCII). */
  private nonAscii = false;

  private started = false;
  private pendingSpace = false;
  private pendingNewlines = 0;
  private softNewline = false;
  private lastWasCR = false;

  private runMode = RUN_BUFFERING;
  private runLen = 0;
  private runUpper = 0;
  private runLower = 0;
  private runDigit = 0;
  private runPunct = 0;
  private runBuf = takeRun();
  private patternPos = 0;
  private forceNextRun = false;

  /** Writes longer than this skip their middle once the head is full (see writeTail). */
  private readonly skipMinChars: number;
  /** Search mode: CJK characters become separate tokens in the final text (cjk.ts). */
  private readonly cjk: boolean;
  /** Secrets in the final text become markers (redact/); null: kept as they are. */
  private readonly redaction: Redaction | null;

  constructor(
    bounds: ProjectionBounds,
    options: { skipMinChars?: number; separateCjk?: boolean; redaction?: Redaction } = {},
  ) {
    this.skipMinChars = options.skipMinChars ?? SKIP_MIN_CHARS;
    this.cjk = options.separateCjk === true;
    this.redaction = options.redaction?.enabled ? options.redaction : null;
    this.maxBytes = bounds.maxBytes;
    this.headBytesCap = bounds.headBytes;
    this.tailBytesCap = bounds.tailBytes;
    this.head = takeHead(bounds.maxBytes);
    let ringSize = 1;
    while (ringSize < bounds.tailBytes + 4) ringSize <<= 1;
    this.ringSize = ringSize;
    this.ringMask = ringSize - 1;
  }

  /** The head just filled up: from now on output goes to the ring, seeded with the head's end. */
  private startRing(): void {
    this.headFull = true;
    this.ring = new Uint8Array(this.ringSize);
    for (let k = Math.max(0, this.headBytes - this.ringSize); k < this.headBytes; k++)
      this.ring[k & this.ringMask] = this.head[k]!;
    this.ringPos = this.headBytes;
  }

  /**
   * Feeds `s[start, end)`. With `decodeEntities`, character references (`&amp;`, `&lt;`,
   * `&#60;`...) are decoded once on the way in (Dyad assistant prose); otherwise the text is taken
   * as it is.
   */
  write(s: string, start = 0, end = s.length, decodeEntities = false): void {
    const len = end - start;
    if (this.headFull ? len <= this.skipMinChars : len <= Math.min(64, this.skipMinChars)) {
      this.process(s, start, end, decodeEntities);
      return;
    }
    let i = start;
    while (i < end) {
      if (this.headFull && end - i > this.skipMinChars) {
        this.writeTail(s, i, end, decodeEntities);
        return;
      }
      let sliceEnd = this.headFull
        ? end
        : Math.min(end, i + Math.min(HEAD_FILL_SLICE, Math.max(64, this.skipMinChars)));
      // Never split a character reference between slices.
      if (decodeEntities && sliceEnd < end) {
        for (let k = sliceEnd - 1; k > i && k >= sliceEnd - MAX_REFERENCE_CHARS; k--) {
          if (s.charCodeAt(k) === 38) {
            sliceEnd = k;
            break;
          }
        }
      }
      this.process(s, i, sliceEnd, decodeEntities);
      i = sliceEnd;
    }
  }

  /**
   * Once the head is full only the last `ring.length` output bytes can still matter, so a long
   * write need not run its middle through the pipeline. It restarts at a resync point `p` near
   * the end where the pipeline state is known exactly from the text around `p` (just after a
   * punctuation character, or after a run of blanks whose newline count is known), processes
   * `[p, end)`, and keeps the result only if that alone produced at least a full ring;
   * otherwise it restores its state and retries from further back, ending with the plain full
   * pass. The output is therefore identical to processing every character (tested).
   */
  private writeTail(s: string, from: number, end: number, decode: boolean): void {
    let window = this.ringSize * 4;
    for (;;) {
      const target = end - window;
      if (target <= from + 1) break;
      if (this.resyncAt(s, from, target)) {
        const saved = this.snapshot();
        this.applyResync();
        const before = this.ringPos;
        this.process(s, this.resync.p, end, decode);
        if (this.ringPos - before >= this.ringSize) return;
        this.restore(saved);
      }
      window *= 4;
    }
    this.process(s, from, end, decode);
  }

  private readonly resync = { p: 0, newlines: 0, space: false, cr: false };

  /**
   * Finds a resync point at or before `target` (and after `from`), scanning back at most
   * RESYNC_SCAN_CHARS: just after a character that is neither blank nor in the base64 alphabet
   * nor `;`/`,` (the pipeline then holds no run, no pattern and no pending blank), or just after
   * a run of blanks that starts after such a state (pending blanks computed from the run).
   */
  private resyncAt(s: string, from: number, target: number): boolean {
    const limit = Math.max(from + 1, target - RESYNC_SCAN_CHARS);
    for (let k = target - 1; k >= limit; k--) {
      const c = s.charCodeAt(k);
      if (isBlank(c)) {
        let q = k;
        while (q > limit && isBlank(s.charCodeAt(q - 1))) q--;
        if (q <= limit) return false;
        const before = s.charCodeAt(q - 1);
        // Not after a high surrogate (it would still be pending) nor after `;` (the end of a
        // character reference that may itself decode to a blank or a line break).
        if ((before >= 0xd800 && before <= 0xdbff) || before === 59) {
          k = q - 1;
          continue;
        }
        let newlines = 0;
        let space = false;
        let cr = false;
        for (let m = q; m <= k; m++) {
          const b = s.charCodeAt(m);
          if (b === 10 || b === 13 || b === 0x2028 || b === 0x2029) {
            if (!(b === 10 && cr)) newlines++;
            cr = b === 13;
          } else {
            space = true;
            cr = false;
          }
        }
        Object.assign(this.resync, { p: k + 1, newlines, space, cr });
        return true;
      }
      // Not `;` `,` (data-URL pattern), `&` `#` (could be inside a character reference), nor a surrogate.
      if (
        (c >= 128 || B64_CLASS[c] === 0) &&
        c !== 59 &&
        c !== 44 &&
        c !== 38 &&
        c !== 35 &&
        (c < 0xd800 || c > 0xdfff)
      ) {
        Object.assign(this.resync, { p: k + 1, newlines: 0, space: false, cr: false });
        return true;
      }
    }
    return false;
  }

  private applyResync(): void {
    this.runMode = RUN_BUFFERING;
    this.runLen = this.runUpper = this.runLower = this.runDigit = this.runPunct = 0;
    this.patternPos = 0;
    this.forceNextRun = false;
    this.started = true;
    this.softNewline = false;
    this.pendingNewlines = this.resync.newlines;
    this.pendingSpace = this.resync.space;
    this.lastWasCR = this.resync.cr;
    this.pendingHigh = 0;
  }

  private snapshot() {
    return {
      ring: this.ring.slice(),
      runBuf: this.runBuf.slice(),
      ringPos: this.ringPos,
      pendingHigh: this.pendingHigh,
      nonAscii: this.nonAscii,
      runMode: this.runMode,
      runLen: this.runLen,
      runUpper: this.runUpper,
      runLower: this.runLower,
      runDigit: this.runDigit,
      runPunct: this.runPunct,
      patternPos: this.patternPos,
      forceNextRun: this.forceNextRun,
      started: this.started,
      softNewline: this.softNewline,
      pendingNewlines: this.pendingNewlines,
      pendingSpace: this.pendingSpace,
      lastWasCR: this.lastWasCR,
    };
  }

  private restore(saved: ReturnType<ProjectionSink["snapshot"]>): void {
    this.ring.set(saved.ring);
    this.runBuf.set(saved.runBuf);
    this.ringPos = saved.ringPos;
    this.pendingHigh = saved.pendingHigh;
    this.nonAscii = saved.nonAscii;
    this.runMode = saved.runMode;
    this.runLen = saved.runLen;
    this.runUpper = saved.runUpper;
    this.runLower = saved.runLower;
    this.runDigit = saved.runDigit;
    this.runPunct = saved.runPunct;
    this.patternPos = saved.patternPos;
    this.forceNextRun = saved.forceNextRun;
    this.started = saved.started;
    this.softNewline = saved.softNewline;
    this.pendingNewlines = saved.pendingNewlines;
    this.pendingSpace = saved.pendingSpace;
    this.lastWasCR = saved.lastWasCR;
  }

  /**
   * Runs `s[start, end)` through the pipeline. One fused loop over char codes with the hot
   * state in locals: letters and digits are buffered per run (to judge base64) and flushed at
   * the run's end; everything else goes through the whitespace normaliser. No allocation per
   * character.
   */
  private process(s: string, start: number, end: number, decode: boolean): void {
    const runBuf = this.runBuf;
    const ref = this.entity;
    let runMode = this.runMode;
    let runLen = this.runLen;
    let upper = this.runUpper;
    let lower = this.runLower;
    let digit = this.runDigit;
    let punct = this.runPunct;
    let pattern = this.patternPos;
    let force = this.forceNextRun;
    for (let i = start; i < end; i++) {
      let c = s.charCodeAt(i);
      if (c === 38 /* & */ && decode) {
        readEntityBody(s, i + 1, ref);
        if (ref.code >= 0 && ref.end <= end) {
          i = ref.end - 1;
          c = ref.code;
          if (c > 0xffff) {
            // An astral character: feed its two halves through the ordinary path.
            this.runMode = runMode;
            this.runLen = runLen;
            this.runUpper = upper;
            this.runLower = lower;
            this.runDigit = digit;
            this.runPunct = punct;
            this.patternPos = pattern;
            this.forceNextRun = force;
            this.process(String.fromCodePoint(c), 0, 2, false);
            runMode = this.runMode;
            runLen = this.runLen;
            upper = this.runUpper;
            lower = this.runLower;
            digit = this.runDigit;
            punct = this.runPunct;
            pattern = this.patternPos;
            force = this.forceNextRun;
            continue;
          }
        }
      }
      const cls = c < 128 ? B64_CLASS[c]! : 0;
      if (cls !== 0) {
        if (runLen === 0) {
          runMode = force ? RUN_SKIPPING : RUN_BUFFERING;
          force = false;
        }
        if (runMode === RUN_SKIPPING) {
          // Fast-forward over the rest of a dropped run (the pattern cannot advance inside it).
          let j = i + 1;
          while (j < end) {
            const d = s.charCodeAt(j);
            if (d >= 128 || B64_CLASS[d] === 0) break;
            j++;
          }
          runLen += j - i;
          pattern = 0;
          i = j - 1;
          continue;
        }
        runLen++;
        if (runMode === RUN_BUFFERING) {
          runBuf[runLen - 1] = c;
          if (cls === 1) upper++;
          else if (cls === 2) lower++;
          else if (cls === 3) digit++;
          else punct++;
          if (runLen === BASE64_WINDOW) {
            if (upper >= 10 && lower >= 10 && digit >= 5 && punct <= 10 && !this.holdsKey(runBuf)) {
              runMode = RUN_SKIPPING;
            } else {
              this.emitRun(BASE64_WINDOW);
              runMode = RUN_PASSTHROUGH;
            }
          }
        } else if (runMode === RUN_PASSTHROUGH) {
          this.emitVisible(c);
        }
        // Inside a run only `base64` of `;base64,` can advance the pattern.
        if (pattern > 0) pattern = c === PATTERN_CODES[pattern] ? pattern + 1 : 0;
      } else {
        if (runLen > 0) {
          if (runMode === RUN_BUFFERING) this.emitRun(runLen);
          else if (runMode === RUN_SKIPPING) this.emitPlaceholder();
          runLen = upper = lower = digit = punct = 0;
          runMode = RUN_BUFFERING;
        }
        force = false;
        if (c === 44 /* , */ && pattern === PATTERN_CODES.length - 1) {
          force = true;
          pattern = 0;
        } else {
          pattern = c === 59 /* ; */ ? 1 : 0;
        }
        this.normalise(c);
        if (c <= 0x20) {
          // The rest of a run of ASCII blanks, exactly as normalise would take them one by one.
          let k = i + 1;
          while (k < end) {
            const d = s.charCodeAt(k);
            if (d > 0x20) break;
            if (d === 10 || d === 13) {
              if (!(d === 10 && this.lastWasCR)) this.pendingNewlines++;
              this.lastWasCR = d === 13;
            } else {
              this.lastWasCR = false;
              this.pendingSpace = true;
            }
            k++;
          }
          i = k - 1;
        }
      }
    }
    this.runMode = runMode;
    this.runLen = runLen;
    this.runUpper = upper;
    this.runLower = lower;
    this.runDigit = digit;
    this.runPunct = punct;
    this.patternPos = pattern;
    this.forceNextRun = force;
  }

  /**
   * A soft line break between blocks: it ends any base64 run and makes at least one line break,
   * but several in a row (or next to a line break of the text) stay one.
   */
  newline(): void {
    if (this.runLen > 0) this.endRun();
    this.forceNextRun = false;
    this.patternPos = 0;
    this.lastWasCR = false;
    this.softNewline = true;
  }

  /** The bounded, normalised text, and whether anything was cut. */
  finish(): Projection {
    if (this.runLen > 0) this.endRun();
    if (this.pendingHigh !== 0) this.putCodePoint(0xfffd);
    const head = this.tokens(this.redact(this.nfc(UTF8.decode(this.head.subarray(0, this.headBytes)))));
    // The text is decoded: the head buffer goes back to the pool, and this sink takes no more.
    giveHead(this.head);
    if (this.runBuf !== NO_RUN && RUN_POOL.length < HEAD_POOL_MAX) RUN_POOL.push(this.runBuf);
    this.runBuf = NO_RUN;
    this.head = NO_BYTES;
    this.headBytes = 0;
    this.headFull = true;
    if (this.ring === NO_BYTES) {
      if (utf8ByteLength(head) <= this.maxBytes) return { text: head, truncated: false };
      // NFC or CJK separators grew the text past the bound: cut the (small, in-memory) result instead.
      return { text: this.joinCut(head, head), truncated: true };
    }
    const size = this.ring.length;
    const count = Math.min(this.ringPos, size);
    const ordered = new Uint8Array(count);
    for (let k = 0; k < count; k++) ordered[k] = this.ring[(this.ringPos - count + k) & (size - 1)]!;
    let from = 0;
    while (from < count && (ordered[from]! & 0xc0) === 0x80) from++; // start on a code point
    const tail = this.tokens(this.redact(this.nfc(UTF8.decode(ordered.subarray(from)))));
    return { text: this.joinCut(head, tail), truncated: true };
  }

  private nfc(text: string): string {
    return this.nonAscii ? text.normalize("NFC") : text;
  }

  private redact(text: string): string {
    return this.redaction ? this.redaction.redact(text) : text;
  }

  /** A base64-looking run that a long provider key starts in: left for redaction to name. */
  private holdsKey(run: Uint16Array): boolean {
    return this.redaction !== null && this.redaction.holdsKeyPrefix(String.fromCharCode(...run));
  }

  /** Search mode: CJK characters as separate tokens (only non-ASCII output can hold any). */
  private tokens(text: string): string {
    return this.cjk && this.nonAscii ? separateCjk(text) : text;
  }

  private joinCut(head: string, tail: string): string {
    const h = cutHeadToBytes(head, this.headBytesCap).trimEnd();
    const t = cutTailToBytes(tail, this.tailBytesCap).trimStart();
    return `${h}${TRUNCATION_MARKER}${t}`;
  }

  private endRun(): void {
    if (this.runMode === RUN_BUFFERING) this.emitRun(this.runLen);
    else if (this.runMode === RUN_SKIPPING) this.emitPlaceholder();
    this.runLen = this.runUpper = this.runLower = this.runDigit = this.runPunct = 0;
    this.runMode = RUN_BUFFERING;
  }

  /** Emits the first `count` buffered run characters (never blanks). */
  private emitRun(count: number): void {
    this.lastWasCR = false;
    this.flushWhitespace();
    const buf = this.runBuf;
    if (this.headFull && this.pendingHigh === 0) {
      // Run characters are ASCII: straight into the ring.
      const ring = this.ring;
      const mask = this.ringMask;
      let pos = this.ringPos;
      for (let k = 0; k < count; k++) ring[pos++ & mask] = buf[k]!;
      this.ringPos = pos;
      return;
    }
    for (let k = 0; k < count; k++) this.put(buf[k]!);
  }

  private emitPlaceholder(): void {
    this.lastWasCR = false;
    this.flushWhitespace();
    for (let k = 0; k < BASE64_PLACEHOLDER.length; k++) this.put(BASE64_PLACEHOLDER.charCodeAt(k));
  }

  /** Emits a character known not to be blank. */
  private emitVisible(c: number): void {
    this.lastWasCR = false;
    this.flushWhitespace();
    this.put(c);
  }

  private normalise(c: number): void {
    if (c > 0x20 && c < 0x7f) {
      this.lastWasCR = false;
      this.flushWhitespace();
      this.put(c);
      return;
    }
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
      if (!(c === 10 && this.lastWasCR)) this.pendingNewlines++;
      this.lastWasCR = c === 13;
      return;
    }
    this.lastWasCR = false;
    if (c <= 0x20 || (c >= 0x7f && c <= 0xa0) || isUnicodeBlank(c)) {
      this.pendingSpace = true;
      return;
    }
    this.flushWhitespace();
    this.put(c);
  }

  private flushWhitespace(): void {
    if (this.started && !this.pendingSpace && this.pendingNewlines === 0 && !this.softNewline) return;
    if (this.started) {
      if (this.pendingNewlines > 0 || this.softNewline) {
        this.put(10);
        if (this.pendingNewlines > 1) this.put(10);
      } else if (this.pendingSpace) {
        this.put(32);
      }
    }
    this.started = true;
    this.pendingNewlines = 0;
    this.pendingSpace = false;
    this.softNewline = false;
  }

  /** Collects one UTF-16 code unit, pairing surrogates (a lone one becomes U+FFFD). */
  private put(c: number): void {
    if (this.pendingHigh !== 0) {
      const high = this.pendingHigh;
      this.pendingHigh = 0;
      if (c >= 0xdc00 && c <= 0xdfff) {
        this.putCodePoint(0x10000 + ((high - 0xd800) << 10) + (c - 0xdc00));
        return;
      }
      this.putCodePoint(0xfffd);
    }
    if (c < 0x80) {
      if (!this.headFull) {
        if (this.headBytes < this.maxBytes) {
          this.head[this.headBytes++] = c;
          return;
        }
        this.startRing();
      }
      this.ring[this.ringPos++ & this.ringMask] = c;
      return;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      this.pendingHigh = c;
      return;
    }
    this.putCodePoint(c >= 0xdc00 && c <= 0xdfff ? 0xfffd : c);
  }

  /** Collects one non-ASCII code point as a whole UTF-8 sequence (never split in the head). */
  private putCodePoint(cp: number): void {
    this.nonAscii = true;
    const n = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    const b = this.seq;
    if (n === 2) {
      b[0] = 0xc0 | (cp >> 6);
      b[1] = 0x80 | (cp & 0x3f);
    } else if (n === 3) {
      b[0] = 0xe0 | (cp >> 12);
      b[1] = 0x80 | ((cp >> 6) & 0x3f);
      b[2] = 0x80 | (cp & 0x3f);
    } else {
      b[0] = 0xf0 | (cp >> 18);
      b[1] = 0x80 | ((cp >> 12) & 0x3f);
      b[2] = 0x80 | ((cp >> 6) & 0x3f);
      b[3] = 0x80 | (cp & 0x3f);
    }
    if (!this.headFull) {
      if (this.headBytes + n <= this.maxBytes) {
        for (let k = 0; k < n; k++) this.head[this.headBytes++] = b[k]!;
        return;
      }
      this.startRing();
    }
    for (let k = 0; k < n; k++) this.ring[this.ringPos++ & this.ringMask] = b[k]!;
  }

  private readonly seq = new Uint8Array(4);
  private readonly entity: EntityResult = { code: -1, end: 0 };
}

function isUnicodeBlank(c: number): boolean {
  return (
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

const UTF8 = new TextDecoder("utf-8");

/** Projects one string through a fresh sink (used for user text and tests). */
export function boundText(text: string, mode: ProjectionMode, redaction?: Redaction): Projection {
  const sink = sinkFor(mode, redaction);
  sink.write(text);
  return sink.finish();
}
