/**
 * A detector finds one kind of secret in a text and replaces each with `[redacted:<name>]`.
 * Detectors are pure and linear in the text's length: they run on every projected text (at
 * most 32 KiB, the read bound) of every record indexed, and on `recall export --redact`.
 */
export interface Detector {
  /** Names the secret's kind in its replacement: lower case, digits and `-`. */
  readonly name: string;
  /** `text` with every secret this detector finds replaced, except values in `allowed`. */
  redact(text: string, allowed: ReadonlySet<string>): string;
}

/** What a secret becomes in every text recall indexes, stores or returns. */
export function redactionMarker(name: string): string {
  return `[redacted:${name}]`;
}

/** The prefix every replacement starts with (a value that already is one is never judged again). */
export const MARKER_PREFIX = "[redacted:";

export interface RegexDetectorSpec {
  name: string;
  /**
   * A global regex. The secret is its named group `secret`, which must end the match (what
   * comes before it, a variable name or a URL's user, stays), or the whole match.
   */
  pattern: RegExp;
  /** A cheap test (`includes`) that rules out most texts before the regex runs. */
  gate?: (text: string) => boolean;
  /** Whether a match is a secret after all (its value's shape, its context in `text`). */
  accept?: (secret: string, text: string, offset: number) => boolean;
  /** The whole match is the secret whatever its groups (config.json patterns). */
  wholeMatch?: boolean;
}

/** A detector from one regex: each accepted match's secret part becomes the marker. */
export function regexDetector(spec: RegexDetectorSpec): Detector {
  if (!spec.pattern.global) throw new Error(`detector ${spec.name}: the pattern must be global`);
  const marker = redactionMarker(spec.name);
  const { pattern, gate, accept } = spec;
  const grouped = spec.wholeMatch !== true;
  return {
    name: spec.name,
    redact(text, allowed) {
      if (gate && !gate(text)) return text;
      pattern.lastIndex = 0;
      return text.replace(pattern, (...args: unknown[]) => {
        const match = args[0] as string;
        // (match, ...groups, offset, text[, named groups]): the named groups come last when present.
        const named = typeof args[args.length - 1] === "object";
        const offset = args[args.length - (named ? 3 : 2)] as number;
        const groups =
          named && grouped ? (args[args.length - 1] as { secret?: string } | undefined) : undefined;
        const secret = groups?.secret ?? match;
        if (secret.length === 0 || allowed.has(secret)) return match;
        if (accept && !accept(secret, text, offset + match.length - secret.length)) return match;
        return match.slice(0, match.length - secret.length) + marker;
      });
    },
  };
}

/** Character classes present in a token, as bits: 1 upper, 2 lower, 4 digit. */
export function letterClasses(token: string): number {
  let bits = 0;
  for (let i = 0; i < token.length && bits !== 7; i++) {
    const c = token.charCodeAt(i);
    if (c >= 65 && c <= 90) bits |= 1;
    else if (c >= 97 && c <= 122) bits |= 2;
    else if (c >= 48 && c <= 57) bits |= 4;
  }
  return bits;
}
