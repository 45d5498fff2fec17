/**
 * Seeded pseudo-random numbers for the demo corpus (sfc32, seeded through splitmix32).
 *
 * Everything the generator emits — ids, UUIDs, timestamps, text — comes from an `Rng`, never from
 * Math.random, Date.now or crypto, so the same seed always produces the same corpus. `fork(label)`
 * derives an independent stream, so one source's size never shifts another source's output.
 */

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** One step of splitmix32: a good 32-bit mixer for seeding. */
function splitmix32(state: number): [next: number, out: number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return [next, (z ^ (z >>> 15)) >>> 0];
}

/** FNV-1a over a string's UTF-16 code units; used to turn fork labels into seeds. */
export function hashString(text: string, basis = 0x811c9dc5): number {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    let s = this.seed ^ 0x5bd1e995;
    let out: number;
    [s, out] = splitmix32(s);
    this.a = out;
    [s, out] = splitmix32(s);
    this.b = out;
    [s, out] = splitmix32(s);
    this.c = out;
    [s, out] = splitmix32(s);
    this.d = out;
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** An independent stream derived from this stream's seed and a label (not from its position). */
  fork(label: string): Rng {
    return new Rng(hashString(label, this.seed ^ 0x811c9dc5));
  }

  /** A uniformly distributed unsigned 32-bit integer (sfc32). */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(items.length)] as T;
  }

  /** Picks by relative weights. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let x = this.next() * total;
    for (const [item, w] of items) {
      x -= w;
      if (x < 0) return item;
    }
    return (items[items.length - 1] as readonly [T, number])[0];
  }

  /** A standard normal deviate (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** `n` random bytes as lowercase hex (2n characters). */
  hex(bytes: number): string {
    let out = "";
    let word = 0;
    for (let i = 0; i < bytes; i++) {
      if ((i & 3) === 0) word = this.u32();
      out += HEX[word & 0xff];
      word >>>= 8;
    }
    return out;
  }

  /** `n` base62 characters (opencode-style random id tails). */
  base62(n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += BASE62[this.int(62)];
    return out;
  }

  /** `n` base64-alphabet characters (fake binary payloads). */
  base64(n: number): string {
    let out = "";
    let word = 0;
    for (let i = 0; i < n; i++) {
      if (i % 5 === 0) word = this.u32();
      out += BASE64[word & 63];
      word >>>= 6;
    }
    return out;
  }

  /** A version-4 UUID from this stream. */
  uuid4(): string {
    const b = this.bytes(16);
    b[6] = ((b[6] as number) & 0x0f) | 0x40;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    return formatUuid(b);
  }

  /** A version-7 UUID whose first 48 bits are `ms` (epoch milliseconds). */
  uuid7(ms: number): string {
    const b = this.bytes(16);
    let t = Math.floor(ms);
    for (let i = 5; i >= 0; i--) {
      b[i] = t % 256;
      t = Math.floor(t / 256);
    }
    b[6] = ((b[6] as number) & 0x0f) | 0x70;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    return formatUuid(b);
  }

  private bytes(n: number): number[] {
    const out: number[] = new Array<number>(n);
    let word = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 3) === 0) word = this.u32();
      out[i] = word & 0xff;
      word >>>= 8;
    }
    return out;
  }
}

function formatUuid(b: readonly number[]): string {
  let s = "";
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += "-";
    s += HEX[b[i] as number];
  }
  return s;
}
