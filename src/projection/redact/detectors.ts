import { secretAssignmentDetector } from "./assignment.js";
import { letterClasses, regexDetector, type Detector } from "./detector.js";
import { highEntropyDetector } from "./entropy.js";
import { privateKeyDetector } from "./private-key.js";

/**
 * Version of the built-in detector set. Any change to what a detector finds (a pattern, a
 * threshold, the order) bumps it: it is part of the redaction fingerprint the index stores,
 * and a new fingerprint rebuilds the index as a new projection version does.
 */
export const DETECTORS_VERSION = 1;

/**
 * Provider key formats. Each starts with its provider's fixed prefix, so it is found wherever it
 * stands; a body shorter than the real format (down to 8 characters) still counts, because a
 * projection can cut a key (a command line's 200 characters, a preview's edge) and the part
 * left must not show either.
 */
const hasDigit = (s: string) => (letterClasses(s) & 4) !== 0;

export const githubToken = regexDetector({
  name: "github-token",
  pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{8,255}|github_pat_[A-Za-z0-9_]{8,255})/g,
  gate: (t) => t.includes("gh") || t.includes("github_pat_"),
  accept: (s) => s.length >= 40 || hasDigit(s.slice(4)),
});

export const gitlabToken = regexDetector({
  name: "gitlab-token",
  pattern: /\b(?:gl(?:pat|dt|ptt|rt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_-]{8,}|GR1348941[A-Za-z0-9_-]{8,})/g,
  gate: (t) => t.includes("gl") || t.includes("GR1348941"),
  accept: (s) => hasDigit(s.slice(s.indexOf("-") + 1)) || s.length >= 26,
});

export const slackToken = regexDetector({
  name: "slack-token",
  pattern: /\b(?:xox[abposer]-[A-Za-z0-9-]{8,}|xapp-\d-[A-Za-z0-9-]{8,})/g,
  gate: (t) => t.includes("xox") || t.includes("xapp-"),
  accept: (s) => hasDigit(s.slice(5)),
});

export const slackWebhook = regexDetector({
  name: "slack-webhook",
  pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{8,}/g,
  gate: (t) => t.includes("hooks.slack.com"),
});

export const stripeKey = regexDetector({
  name: "stripe-key",
  pattern: /\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{8,}|whsec_[A-Za-z0-9]{16,})/g,
  gate: (t) => t.includes("_live_") || t.includes("_test_") || t.includes("whsec_"),
  accept: (s) => hasDigit(s.slice(s.lastIndexOf("_") + 1)),
});

export const anthropicKey = regexDetector({
  name: "anthropic-key",
  pattern: /\bsk-ant-[A-Za-z0-9_-]{8,}/g,
  gate: (t) => t.includes("sk-ant-"),
});

export const openaiKey = regexDetector({
  name: "openai-key",
  pattern: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g,
  gate: (t) => t.includes("sk-"),
  // A key body is random base62: `sk-learn-…` and other names are not.
  accept: (s) => letterClasses(s.slice(3)) === 7,
});

export const googleApiKey = regexDetector({
  name: "google-api-key",
  pattern: /\b(?:AIza[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{16,})/g,
  gate: (t) => t.includes("AIza") || t.includes("GOCSPX-"),
});

export const npmToken = regexDetector({
  name: "npm-token",
  pattern: /\bnpm_[A-Za-z0-9]{20,}/g,
  gate: (t) => t.includes("npm_"),
  accept: (s) => hasDigit(s.slice(4)),
});

/** Access key ids are base32 after a fixed prefix (AKIA long-term, ASIA temporary, …). */
export const awsAccessKeyId = regexDetector({
  name: "aws-access-key-id",
  pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{12,16}\b/g,
  gate: (t) =>
    t.includes("AKIA") || t.includes("ASIA") || t.includes("ABIA") || t.includes("ACCA") || t.includes("A3T"),
  accept: (s) => hasDigit(s.slice(4)) || s.length === 20,
});

/**
 * A secret access key has no prefix: 40 base64 characters with both cases, found only in
 * context — "aws" in the AWS_CONTEXT_CHARS before it (`AWS_SECRET_ACCESS_KEY=…`, `aws configure
 * set aws_secret_access_key …`, a credentials file's `[aws]` profile).
 */
export const AWS_CONTEXT_CHARS = 120;
const AWS_CONTEXT = /aws/i;
export const awsSecretKey = regexDetector({
  name: "aws-secret-key",
  pattern: /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
  gate: (t) => /aws/i.test(t),
  accept: (s, text, offset) =>
    (letterClasses(s) & 3) === 3 &&
    AWS_CONTEXT.test(text.slice(Math.max(0, offset - AWS_CONTEXT_CHARS), offset)),
});

/** Header, payload (both base64url JSON, so `eyJ` / `ey`), then the signature (empty when unsigned). */
export const jwt = regexDetector({
  name: "jwt",
  pattern: /\beyJ[A-Za-z0-9_-]{6,}\.ey[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*/g,
  gate: (t) => t.includes("eyJ"),
});

/** `scheme://user:password@host`: only the password goes. */
export const urlPassword = regexDetector({
  name: "url-password",
  pattern: /\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s:/?#@"'<>\\]{0,200}:(?<secret>[^\s/?#@"'<>\\]{1,200})(?=@)/gi,
  gate: (t) => t.includes("://") && t.includes("@"),
  accept: (s) => !/^(?:\*+|x+|\$\{?\w+\}?|<[^>]*>)$/i.test(s),
});

/** `Authorization: Bearer …`: an opaque token has digits; words after "Bearer" in prose do not. */
export const bearerToken = regexDetector({
  name: "bearer-token",
  pattern: /\b[Bb]earer\s+(?<secret>[A-Za-z0-9._~+/-]{16,}=*)/g,
  gate: (t) => t.includes("earer"),
  accept: (s) => hasDigit(s),
});

/** `Authorization: Basic …`: base64 of `user:password`. */
export const basicAuth = regexDetector({
  name: "basic-auth",
  pattern: /\bBasic\s+(?<secret>[A-Za-z0-9+/]{8,}={0,2})/g,
  gate: (t) => t.includes("Basic"),
  accept: (s) => decodesToCredentials(s),
});

function decodesToCredentials(value: string): boolean {
  try {
    const decoded = atob(value);
    return /^[\x20-\x7e]+:[\x20-\x7e]*$/.test(decoded);
  } catch {
    return false;
  }
}

/**
 * Every built-in detector, in the order they run. Whole blocks and URLs first, then prefixed
 * formats (Anthropic's `sk-ant-` before OpenAI's `sk-`), then context-bound ones, then
 * secret-named assignments (a value a named detector took is already a marker), and the
 * high-entropy catch-all last.
 */
export const BUILT_IN_DETECTORS: readonly Detector[] = [
  privateKeyDetector,
  urlPassword,
  slackWebhook,
  jwt,
  githubToken,
  gitlabToken,
  slackToken,
  stripeKey,
  anthropicKey,
  openaiKey,
  googleApiKey,
  npmToken,
  awsAccessKeyId,
  awsSecretKey,
  bearerToken,
  basicAuth,
  secretAssignmentDetector,
  highEntropyDetector,
];

/** The names a match may be replaced with; a config pattern may not reuse one. */
export const BUILT_IN_DETECTOR_NAMES: readonly string[] = BUILT_IN_DETECTORS.map((d) => d.name);

/**
 * Prefixes of provider keys long enough to reach the projection's base64 filter (bounds.ts
 * drops a run of 100 base64-alphabet characters that looks like encoded data): a run holding one
 * is left for redaction, so the key is named (`[redacted:anthropic-key]`), not `[base64 omitted]`.
 */
export const LONG_KEY_PREFIXES: readonly string[] = [
  "sk-ant-",
  "sk-proj-",
  "sk-svcacct-",
  "sk-admin-",
  "eyJ",
];
