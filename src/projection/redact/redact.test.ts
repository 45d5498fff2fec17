import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { fakeSecrets, randomChars, seededRandom } from "../../../test/helpers/fake-secrets.js";
import { ConfigSchema } from "../../config/schema.js";
import { BUILT_IN_DETECTOR_NAMES, compileRedaction, DEFAULT_REDACTION, looksRandom } from "./index.js";

const redact = (text: string) => DEFAULT_REDACTION.redact(text);
const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

describe("built-in detectors", () => {
  it("has a fake secret for every detector, each named in its marker, alone and inside prose", () => {
    const secrets = fakeSecrets(7);
    expect(new Set(secrets.map((s) => s.detector))).toEqual(new Set(BUILT_IN_DETECTOR_NAMES));
    for (const s of secrets) {
      for (const text of [s.text, `before it ${s.text} and after it`, `"${s.text}"`, `(${s.text})\n`]) {
        const out = redact(text);
        expect(out, `${s.detector} in ${text}`).toContain(`[redacted:${s.detector}]`);
        expect(out, s.detector).not.toContain(s.secret);
      }
    }
  });

  it("names provider keys by their prefix: Anthropic before OpenAI, fine-grained GitHub tokens", () => {
    const [anthropic] = fakeSecrets(3).filter((s) => s.detector === "anthropic-key");
    expect(redact(`ANTHROPIC_API_KEY=${anthropic!.secret}`)).toBe(
      "ANTHROPIC_API_KEY=[redacted:anthropic-key]",
    );
    expect(redact("export OPENAI_API_KEY=sk-AbCdEf0123456789GhIjKlMn")).toBe(
      "export OPENAI_API_KEY=[redacted:openai-key]",
    );
    // A command line cut at 200 characters keeps only the start of a key: still redacted.
    expect(redact("curl -H 'Authorization: token ghp_Ab12Cd34…")).toBe(
      "curl -H 'Authorization: token [redacted:github-token]…",
    );
    expect(redact("AKIAIOSFODNN7EXAMPLE is the documented example id")).toBe(
      "[redacted:aws-access-key-id] is the documented example id",
    );
  });

  it("takes an AWS secret access key only in context", () => {
    const key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    expect(redact(`aws configure set aws_secret_access_key ${key}`)).toBe(
      "aws configure set aws_secret_access_key [redacted:aws-secret-key]",
    );
    expect(
      redact(`[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = ${key}`),
    ).toBe(
      "[default]\naws_access_key_id = [redacted:aws-access-key-id]\naws_secret_access_key = [redacted:aws-secret-key]",
    );
  });

  it("replaces only the value of a secret-named assignment, in every form transcripts hold", () => {
    const cases: [string, string][] = [
      ["DB_PASSWORD=hunter2 npm start", "DB_PASSWORD=[redacted:secret-assignment] npm start"],
      [
        '{"api_key": "abc123def456", "user": "bob"}',
        '{"api_key": "[redacted:secret-assignment]", "user": "bob"}',
      ],
      ['{\\"password\\":\\"s3cr3t!\\"}', '{\\"password\\":\\"[redacted:secret-assignment]\\"}'],
      ["password: s3cr3t!", "password: [redacted:secret-assignment]"],
      ["client_secret = 'Zx81-kq_0p'", "client_secret = '[redacted:secret-assignment]'"],
      ["mysql --password hunter2 -u root", "mysql --password [redacted:secret-assignment] -u root"],
      ["X-Auth-Token: 6f1ce2a8b0", "X-Auth-Token: [redacted:secret-assignment]"],
      [
        "https://api.example.com/v1?access_token=ab12cd34&x=1",
        "https://api.example.com/v1?access_token=[redacted:secret-assignment]&x=1",
      ],
      ['const githubToken = "tok_91xk";', 'const githubToken = "[redacted:secret-assignment]";'],
    ];
    for (const [input, output] of cases) expect(redact(input), input).toBe(output);
  });

  it("replaces only a URL's password, and a private key block whole", () => {
    expect(redact("DATABASE_URL=postgres://app:Sup3rSecret@db:5432/app")).toBe(
      "DATABASE_URL=postgres://app:[redacted:url-password]@db:5432/app",
    );
    expect(redact("redis://:p4ssw0rd@cache:6379")).toBe("redis://:[redacted:url-password]@cache:6379");
    const body = Array.from({ length: 4 }, (_, i) => randomChars(seededRandom(i), BASE62, 64));
    const pem = `-----BEGIN OPENSSH PRIVATE KEY-----\n${body.join("\n")}\n-----END OPENSSH PRIVATE KEY-----`;
    expect(redact(`key:\n${pem}\ndone`)).toBe("key:\n[redacted:private-key]\ndone");
    // JSON-escaped line breaks, as inside a transcript line or a tool input.
    expect(redact(JSON.stringify({ content: pem }))).toBe('{"content":"[redacted:private-key]"}');
    // A projection's head cut before the END, and a tail that starts inside the key lines.
    expect(redact(pem.slice(0, 200))).toBe("[redacted:private-key]");
    expect(redact(`…[truncated]…\n${pem.slice(150)}\nafter`)).toBe(
      "…[truncated]…\n[redacted:private-key]\nafter",
    );
  });

  it("takes Basic credentials only when they decode to user:password, Bearer tokens only with digits", () => {
    expect(redact(`Authorization: Basic ${Buffer.from("alice:hunter2").toString("base64")}`)).toBe(
      "Authorization: Basic [redacted:basic-auth]",
    );
    expect(redact("the Basic authentication scheme")).toBe("the Basic authentication scheme");
    expect(redact("use Bearer authentication everywhere")).toBe("use Bearer authentication everywhere");
  });

  it("redacts random tokens from 32 characters with the documented threshold", () => {
    const random = seededRandom(11);
    const share = (alphabet: string, length: number) => {
      let found = 0;
      for (let i = 0; i < 5000; i++) if (looksRandom(randomChars(random, alphabet, length))) found++;
      return found / 5000;
    };
    expect(share(BASE62, 40)).toBeGreaterThan(0.995);
    expect(share(`${BASE62}+/`, 32)).toBeGreaterThan(0.985);
    expect(share(BASE62, 64)).toBeGreaterThan(0.995);
    expect(looksRandom(randomChars(random, BASE62, 31))).toBe(false);
  });

  it("is idempotent: redacted text holds nothing to redact", () => {
    for (const s of fakeSecrets(5)) {
      const once = redact(`${s.text} and PASSWORD=${s.secret.slice(0, 12)}`);
      expect(redact(once)).toBe(once);
    }
  });
});

describe("config.json redaction settings", () => {
  const config = (redaction: unknown) => ConfigSchema.parse({ redaction }).redaction;

  it("adds patterns (run first, whole match replaced) and allow-listed values", () => {
    const r = compileRedaction(
      config({
        patterns: [{ name: "internal-token", pattern: "itk_[a-z0-9]{12}" }],
        allow: ["AKIAIOSFODNN7EXAMPLE"],
      }),
    );
    expect(r.redact("use itk_abcdef123456 and AKIAIOSFODNN7EXAMPLE and AKIAQ7PLANTEDX4Z2WJK")).toBe(
      "use [redacted:internal-token] and AKIAIOSFODNN7EXAMPLE and [redacted:aws-access-key-id]",
    );
  });

  it("validates patterns and names the field", () => {
    const issue = (redaction: unknown) => {
      const parsed = ConfigSchema.safeParse({ redaction });
      return parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(issue({ patterns: [{ name: "x", pattern: "([a-z" }] })).toEqual([
      expect.stringMatching(/^redaction\.patterns\.0\.pattern: not a valid regular expression/),
    ]);
    expect(issue({ patterns: [{ name: "x", pattern: "a*" }] })).toEqual([
      "redaction.patterns.0.pattern: must not match the empty string",
    ]);
    expect(issue({ patterns: [{ name: "Bad Name", pattern: "x" }] })?.[0]).toMatch(
      /^redaction\.patterns\.0\.name: /,
    );
    expect(issue({ patterns: [{ name: "x", pattern: "x", flags: "g" }] })?.[0]).toMatch(
      /flags: may hold only/,
    );
    expect(issue({ enabled: "no" })?.[0]).toMatch(/^redaction\.enabled: /);
  });

  it("turned off, changes nothing; every setting has its own fingerprint", () => {
    const off = compileRedaction(config({ enabled: false }));
    const s = fakeSecrets(2)[0]!;
    expect(off.redact(s.text)).toBe(s.text);
    const prints = [
      DEFAULT_REDACTION,
      off,
      compileRedaction(config({ allow: ["x"] })),
      compileRedaction(config({ patterns: [{ name: "a", pattern: "b" }] })),
    ].map((r) => r.fingerprint);
    expect(new Set(prints).size).toBe(4);
    expect(compileRedaction(config({})).fingerprint).toBe(DEFAULT_REDACTION.fingerprint);
  });
});

describe("cost", () => {
  /** Texts built to make a backtracking regex slow: each must still take linear time. */
  const adversarial = [
    "a".repeat(32 * 1024),
    "Ab1".repeat(11 * 1024),
    "password=".repeat(3600),
    "password: ".repeat(3200),
    "-----BEGIN RSA PRIVATE KEY-----\n".repeat(1000),
    "x://a:".repeat(5400),
    "https://user:".repeat(2500),
    "eyJabcdefgh.".repeat(2700),
    "ghp_".repeat(8000),
    "AKIA".repeat(8000),
    `aws ${"A".repeat(39)}/`.repeat(700),
    "Bearer ".repeat(4600),
  ];

  it("stays linear on adversarial texts at the read bound (32 KiB)", () => {
    for (const text of adversarial) {
      const started = performance.now();
      redact(text);
      expect(performance.now() - started, text.slice(0, 30)).toBeLessThan(150);
    }
  });
});
