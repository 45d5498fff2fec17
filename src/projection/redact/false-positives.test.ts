import { describe, expect, it } from "vitest";
import { boundText } from "../bounds.js";
import { DEFAULT_REDACTION } from "./index.js";

/**
 * Text that looks like secrets to a careless detector and is not: redaction leaves it exactly
 * as it was. The documented exceptions (README "Secrets") are at the end.
 */
const UNTOUCHED: Record<string, string[]> = {
  "git hashes": [
    "commit 3f9c2d1e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e",
    "git cherry-pick 9fceb02 && git revert a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
    "sha256:7d865e959b2466918c9863afca942d0fb89d7c9ac0c99bafc3749504ded97730",
    "SHA1 = DA39A3EE5E6B4B0D3255BFEF95601890AFD80709",
  ],
  UUIDs: [
    "session 33cc15ab-fb10-4624-8cd8-c1baa189d2cd resumed",
    "claude:33cc15ab-fb10-4624-8cd8-c1baa189d2cd/agent-a7f3",
    "{6F9619FF-8B86-D011-B42D-00C04FC964FF}",
    "request_id=5e55a7e10000400080000000b11d0001",
  ],
  paths: [
    "/home/alice/projects/recall/src/projection/redact/detectors.ts",
    "C:\\Users\\Alice\\AppData\\Roaming\\Code\\User\\settings.json",
    "src/Components/UserProfile2/AvatarUploadDialog3/index.tsx",
    "~/.claude/projects/-home-alice-projects-recall/33cc15ab-fb10-4624-8cd8-c1baa189d2cd.jsonl",
    "node_modules/@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js",
    "/Users/Alice/Library/Application Support/Dyad/userData/sqlite.db",
  ],
  "base64 already stripped": [
    "the screenshot was [base64 omitted] as usual",
    "data:image/png;[base64 omitted]",
  ],
  "version strings": [
    "node v20.19.43, better-sqlite3 12.11.1, typescript 5.9.3-beta.2+build.20261204",
    "Claude Code 2.1.284 (claude-sonnet-4-5-20250929)",
    "gpt-6-luna-2026-11-01, codex_cli_rs 0.158.0",
    "ubuntu-24.04-x86_64-linux-gnu-gcc-13.2.0-6ubuntu1",
  ],
  "ordinary prose": [
    "We decided to rotate the session token every 24 hours and keep the password policy as it is.",
    "The secret: we ship on Mondays. Token: the first step. Password: see the vault.",
    "Use Bearer authentication everywhere; Basic authentication is off.",
    "Ask the owner for the API key; never paste keys into prompts.",
    "The AWS bill went up; aws s3 ls shows 12 buckets.",
    "検索結果を確認してください。déjà vu — naïve café",
  ],
  code: [
    "const token = await getToken(user.id);",
    "let password = req.body.password;",
    "const secret = process.env.SESSION_SECRET;",
    'password = input("Password: ")',
    "token = tokens[0]",
    "api_key = os.environ['OPENAI_API_KEY']",
    "export GITHUB_TOKEN=$(gh auth token)",
    "token: string;",
    "password: str",
    "apiKey?: string",
    "if (token === undefined) throw new Error('no token');",
    '{"max_tokens": 4096, "input_tokens": 1234, "token_count": 7, "token": null, "secret": true}',
    "usage.output_tokens=812 usage.cache_read_input_tokens=40960",
    "const passwordHash = await bcrypt.hash(password, 12);",
    "curl -H 'Authorization: Bearer $TOKEN' https://api.example.com",
    "TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "password: ${DB_PASSWORD}",
    "PWD=/home/alice/projects/recall OLDPWD=/home/alice",
    'headers = {"Authorization": f"Bearer {api_key}"}',
    "git clone git@github.com:acme/recall.git && ssh -p 2222 deploy@10.0.0.12",
    "postgres://app@db:5432/app and https://user@example.com/path and mailto:alice@example.com",
    "password=******** and secret=xxxxxxxx and token=<your-token>",
    "AbstractSingletonProxyFactoryBean handleUserAuthenticationCallback2 getHTTPResponseCode2XX",
    "test_projection_handles_large_inputs_v2 SEARCH_PROJECTION_MAX_BYTES READ_PROJECTION_HEAD_BYTES",
    "ProjectionSinkSkipsTheMiddleOfLongWrites2 useEffectCleanupRunsBeforeNextRender",
    "kubectl rollout restart deployment/api-server-7d9f8b6c5-x2v4q -n production-eu-west-1",
    "if line.startswith('-----BEGIN RSA PRIVATE KEY-----'): return parse_pem(lines)",
    "the credentials are in ~/.aws/credentials; run aws configure",
  ],
};

describe("false-positive corpus", () => {
  for (const [group, texts] of Object.entries(UNTOUCHED)) {
    it(`leaves ${group} untouched`, () => {
      for (const text of texts) expect(DEFAULT_REDACTION.redact(text)).toBe(text);
    });
  }

  it("leaves every line of the corpus untouched through a whole projection, too", () => {
    const all = Object.values(UNTOUCHED).flat().join("\n");
    const off = boundText(all, "read", { ...DEFAULT_REDACTION, enabled: false });
    expect(boundText(all, "read").text).toBe(off.text);
  });

  it("documented exceptions: mixed-case base64 of 32 to 99 characters is taken for a key", () => {
    // npm's integrity hashes and similar digests in base64 (README "Secrets").
    const integrity =
      "sha512-Q7pXvJrM4RkqK1v8tZb3LmN0aWx9cYdEf2Gh6Ij5Kl4Mn3Op2Qr1St0Uv9Wx8Yz7Ab6Cd5Ef4Gh3Ij2Kl1Mn0==";
    expect(DEFAULT_REDACTION.redact(integrity)).toBe("[redacted:high-entropy]");
  });
});
