import { looksRandom } from "../../src/projection/redact/entropy.js";

/**
 * Fake secrets in each detector's real format, for tests: random characters
 * from a seeded generator (never a real credential), shaped as each provider issues them.
 */
export type DetectorName =
  | "github-token"
  | "gitlab-token"
  | "slack-token"
  | "slack-webhook"
  | "stripe-key"
  | "anthropic-key"
  | "openai-key"
  | "google-api-key"
  | "npm-token"
  | "aws-access-key-id"
  | "aws-secret-key"
  | "jwt"
  | "private-key"
  | "url-password"
  | "bearer-token"
  | "basic-auth"
  | "secret-assignment"
  | "high-entropy";

const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const BASE64 = `${BASE62}+/`;
const BASE64URL = `${BASE62}-_`;
const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** A small seeded generator (mulberry32): the same seed gives the same secrets. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `length` characters of `alphabet`, holding at least one upper-case letter, one lower-case
 * letter and one digit when the alphabet has them (as issued keys of that length always do).
 */
export function randomChars(random: () => number, alphabet: string, length: number): string {
  for (;;) {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
    const wants = [/[A-Z]/, /[a-z]/, /[0-9]/].filter((re) => re.test(alphabet));
    if (wants.every((re) => re.test(out))) return out;
  }
}

export interface FakeSecret {
  detector: DetectorName;
  /** The text as it would appear (a header, an assignment, a URL around the secret). */
  text: string;
  /** The part that must never appear in any output. */
  secret: string;
}

/** One fake secret of each detector's kind, in context. */
export function fakeSecrets(seed = 1): FakeSecret[] {
  const r = seededRandom(seed);
  const chars = (alphabet: string, n: number) => randomChars(r, alphabet, n);
  // A bare token past the catch-all's threshold: a draw can read as words run together (its
  // documented miss rate, measured in redact.test.ts), which no detector is meant to catch.
  const randomToken = () => {
    let token: string;
    do token = chars(BASE62, 44);
    while (!looksRandom(token));
    return token;
  };
  const bare = (detector: DetectorName, secret: string): FakeSecret => ({ detector, text: secret, secret });
  const awsSecret = chars(BASE64, 40);
  const password = `Pw${chars(BASE62, 14)}`;
  const urlPassword = chars(BASE62, 18);
  const jwtValue = [
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    `eyJ${chars(BASE64URL, 40)}`,
    chars(BASE64URL, 43),
  ].join(".");
  const keyLines = Array.from({ length: 6 }, () => chars(BASE64, 64)).join("\n");
  const pem = `-----BEGIN RSA PRIVATE KEY-----\n${keyLines}\n-----END RSA PRIVATE KEY-----`;
  const basic = Buffer.from(`deploy:${chars(BASE62, 12)}`).toString("base64");
  const bearer = chars(BASE62, 32);
  return [
    bare("github-token", `ghp_${chars(BASE62, 36)}`),
    bare("github-token", `github_pat_${chars(BASE62, 22)}_${chars(BASE62, 59)}`),
    bare("gitlab-token", `glpat-${chars(BASE62, 20)}`),
    bare("slack-token", `xoxb-${chars("0123456789", 12)}-${chars("0123456789", 13)}-${chars(BASE62, 24)}`),
    bare(
      "slack-webhook",
      `https://hooks.slack.com/services/T${chars(UPPER_DIGITS, 8)}/B${chars(UPPER_DIGITS, 10)}/${chars(BASE62, 24)}`,
    ),
    bare("stripe-key", `sk_live_${chars(BASE62, 24)}`),
    bare("anthropic-key", `sk-ant-api03-${chars(BASE64URL, 93)}AA`),
    bare("openai-key", `sk-proj-${chars(BASE64URL, 120)}`),
    bare("openai-key", `sk-${chars(BASE62, 20)}T3BlbkFJ${chars(BASE62, 20)}`),
    bare("google-api-key", `AIza${chars(BASE64URL, 35)}`),
    bare("npm-token", `npm_${chars(BASE62, 36)}`),
    bare("aws-access-key-id", `AKIA${chars(UPPER_DIGITS, 16)}`),
    { detector: "aws-secret-key", text: `aws_secret_access_key = ${awsSecret}`, secret: awsSecret },
    bare("jwt", jwtValue),
    { detector: "private-key", text: pem, secret: keyLines.split("\n")[2]! },
    {
      detector: "url-password",
      text: `postgres://app_user:${urlPassword}@db.internal:5432/app`,
      secret: urlPassword,
    },
    { detector: "bearer-token", text: `Authorization: Bearer ${bearer}`, secret: bearer },
    { detector: "basic-auth", text: `Authorization: Basic ${basic}`, secret: basic },
    { detector: "secret-assignment", text: `DB_PASSWORD=${password}`, secret: password },
    bare("high-entropy", randomToken()),
  ];
}
