/**
 * Secrets never leave the index (issue #31), end to end through the real sources and surfaces:
 * a Claude Code session built by hand with a secret in each place a real one lands — a GitHub
 * token in a prompt and the session's title, an AWS secret key in a Bash command, a Stripe key
 * in a command's stdout, a database password in a file a Write wrote, a Slack token in an error
 * output, an Anthropic key in the assistant's prose — plus a bridge message, a decision and a
 * run's log line and metadata, and a Dyad chat (title and message). Indexed with the compiled
 * `recall`, none of them comes back from `recall search --json`, `recall conversation --json`,
 * MCP, or a real `recall serve`; hits show `[redacted:<detector>]`; searching a secret's own
 * value finds nothing; the derived tables hold none. `recall export` stays exact, `--redact`
 * does not. config.json's allow-list, and redaction off (loud in `recall status`), rebuild the
 * index's text, and nothing of the old text is served once the rebuild is done.
 */
import Database from "better-sqlite3";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBridgeWriter } from "../src/bridge/writer.js";
import { runCli, type CliResult } from "./helpers/cli.js";
import { createDyadDb } from "./helpers/dyad.js";
import { fakeSecrets, type DetectorName } from "./helpers/fake-secrets.js";
import { httpRequest, login, startServe, type ServeProcess } from "./helpers/http.js";
import { connectMcp } from "./helpers/mcp.js";
import { tempDir } from "./helpers/tmp.js";
import { BASE_TIME, claudeBlockLines } from "./sources-lines.js";

const SESSION = "5ec2e7aa-0031-4d3e-8f40-51a2b3c4d5e6";
const CWD = "/nonexistent/recall-test/payments";
const all = fakeSecrets(31);
const secret = (detector: DetectorName) => all.find((s) => s.detector === detector)!;

const github = secret("github-token");
const aws = secret("aws-secret-key");
const stripe = secret("stripe-key");
const dbPassword = secret("secret-assignment");
const slack = secret("slack-token");
const anthropic = secret("anthropic-key");
const npm = secret("npm-token");
const jwt = secret("jwt");
const openai = all.filter((s) => s.detector === "openai-key")[0]!;
const googleKey = secret("google-api-key");
const urlPassword = secret("url-password");
const privateKey = secret("private-key");
const awsId = secret("aws-access-key-id");
const gitlab = secret("gitlab-token");

/** Every planted secret: none may appear in any output or derived table. */
const PLANTED = [
  github,
  aws,
  stripe,
  dbPassword,
  slack,
  anthropic,
  npm,
  jwt,
  openai,
  googleKey,
  urlPassword,
  privateKey,
  awsId,
  gitlab,
];

const { line, user, assistant, toolResult: result } = claudeBlockLines(SESSION, CWD);

const ENV_FILE = `# payments service\nNODE_ENV=production\n${dbPassword.text}\nPORT=3000\n`;
const STDOUT = `loaded config\nstripe key in use: ${stripe.text}\n2 webhooks registered\n`;
const ERROR = `Error: slack notify failed\n  token ${slack.text} was revoked\n  at notify (src/slack.ts:12)`;

function transcript(): string {
  return (
    line({ type: "custom-title", customTitle: `rotate ${github.text} before friday`, sessionId: SESSION }) +
    user("u1", BASE_TIME, `use this token for the release: ${github.text} and ship the payments fix`) +
    assistant("a1", BASE_TIME + 1, [
      { type: "text", text: `I will configure the client with ${anthropic.text} as you asked.` },
    ]) +
    assistant("a2", BASE_TIME + 2, [
      {
        type: "tool_use",
        id: "toolu_1",
        name: "Bash",
        input: { command: `AWS_SECRET_ACCESS_KEY=${aws.secret} aws s3 ls s3://payments-backups` },
      },
    ]) +
    result("t1", BASE_TIME + 3, "toolu_1", "2026-06-01 payments-backups", false, {
      stdout: "2026-06-01 payments-backups",
      stderr: "",
      interrupted: false,
    }) +
    assistant("a3", BASE_TIME + 4, [
      { type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "node scripts/check-config.js" } },
    ]) +
    result("t2", BASE_TIME + 5, "toolu_2", STDOUT, false, {
      stdout: STDOUT,
      stderr: "",
      interrupted: false,
    }) +
    assistant("a4", BASE_TIME + 6, [
      {
        type: "tool_use",
        id: "toolu_3",
        name: "Write",
        input: { file_path: `${CWD}/.env`, content: ENV_FILE },
      },
    ]) +
    result("t3", BASE_TIME + 7, "toolu_3", `File created successfully at: ${CWD}/.env`, false, {
      type: "create",
      filePath: `${CWD}/.env`,
      content: ENV_FILE,
      structuredPatch: [],
    }) +
    assistant("a5", BASE_TIME + 8, [
      { type: "tool_use", id: "toolu_4", name: "Bash", input: { command: "node scripts/notify.js" } },
    ]) +
    result("t4", BASE_TIME + 9, "toolu_4", ERROR, true, `Error: ${ERROR}`) +
    user("u2", BASE_TIME + 10, "thanks, the payments release checklist is done")
  );
}

let t: ReturnType<typeof tempDir>;
let env: Record<string, string>;
let recallHome: string;
let bridgeRun = "";
let dyadChat = 0;
const outputs: string[] = [];

function cli(...args: string[]): CliResult {
  const r = runCli(args, env);
  outputs.push(r.stdout, r.stderr);
  return r;
}
const json = <T>(r: CliResult): T => {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
};
function writeConfig(redaction: unknown): void {
  writeFileSync(
    path.join(recallHome, "config.json"),
    JSON.stringify({ sources: { dyadDatabases: [path.join(t.dir, "dyad.db")] }, redaction }),
  );
}
const leaked = (text: string) => PLANTED.filter((s) => text.includes(s.secret)).map((s) => s.detector);

interface Hit {
  id: string;
  conversation: string;
  snippet: string;
  title: string | null;
  relaxed?: boolean;
}
const search = (query: string) => json<{ hits: Hit[] }>(cli("search", query, "--json", "--limit", "20")).hits;

beforeAll(() => {
  t = tempDir("recall-redaction-");
  const home = path.join(t.dir, "home");
  recallHome = path.join(t.dir, "recall");
  const projects = path.join(home, ".claude", "projects", CWD.replace(/[^A-Za-z0-9]/g, "-"));
  mkdirSync(projects, { recursive: true });
  mkdirSync(recallHome, { recursive: true });
  writeFileSync(path.join(projects, `${SESSION}.jsonl`), transcript());

  const bridge = path.join(t.dir, "bridge");
  const w = openBridgeWriter(bridge);
  w.post({
    sender: "release-bot",
    recipients: ["owner"],
    body: `publish with ${npm.text} after the payments release`,
    conversation: "payments-release",
    at: BASE_TIME + 20,
  });
  w.decide({
    topic: "payments-auth",
    decision: `service calls carry ${jwt.text} until the gateway lands`,
    rationale: `the gateway's ${openai.text} stays server side`,
    by: "owner",
    at: BASE_TIME + 21,
  });
  const run = w.startRun({
    job: "payments-migrate",
    at: BASE_TIME + 22,
    log: `starting migration\nconnecting to ${urlPassword.text}\nmigration done\n`,
    metadata: { title: `migrate with ${awsId.text}`, status: "finished", deployToken: gitlab.text },
  });
  bridgeRun = run.name.base;
  w.close();

  const dyad = createDyadDb(t.dir, "dyad.db");
  const app = dyad.app("payments");
  dyadChat = dyad.chat(app, `maps key ${googleKey.text}`);
  dyad.message(dyadChat, "user", `here is the deploy key:\n${privateKey.text}\nuse it for the payments box`);
  dyad.message(dyadChat, "assistant", "Stored the payments deploy key in the vault.");
  dyad.db.close();

  // Only this HOME is read, whatever the environment the tests run in names.
  env = {
    HOME: home,
    RECALL_HOME: recallHome,
    RECALL_BRIDGE_DIR: bridge,
    CLAUDE_CONFIG_DIR: path.join(home, ".claude"),
    CODEX_HOME: path.join(home, ".codex"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CONFIG_HOME: path.join(home, ".config"),
    OPENCODE_DB: "",
    RECALL_SESSION_ID: "",
    NO_COLOR: "1",
  };
  writeConfig({});
  const indexed = cli("index");
  expect(indexed.status, indexed.stderr).toBe(0);
});

afterAll(() => t?.cleanup());

describe("redaction end to end", () => {
  it("indexed every source: the session, the bridge message, decision and run, the Dyad chat", () => {
    const hits = search("payments");
    const kinds = new Set(hits.map((h) => h.id.split(":")[0]));
    for (const kind of ["transcript", "message", "decision", "run", "chat"])
      expect(kinds, kind).toContain(kind);
  });

  it("shows the detector's name where each secret was, in search snippets and titles", () => {
    const expectations: [string, string][] = [
      ["use this token for the release", "[redacted:github-token]"],
      ["configure the client", "[redacted:anthropic-key]"],
      ["stripe key in use", "[redacted:stripe-key]"],
      ["NODE_ENV production PORT", "[redacted:secret-assignment]"],
      ["slack notify failed", "[redacted:slack-token]"],
      ["publish after the payments release", "[redacted:npm-token]"],
      ["service calls carry", "[redacted:jwt]"],
      ["connecting to migration", "[redacted:url-password]"],
      ["deploy key payments box", "[redacted:private-key]"],
    ];
    for (const [query, marker] of expectations) {
      const hits = search(query).filter((h) => !h.relaxed);
      expect(hits.length, query).toBeGreaterThan(0);
      expect(hits[0]!.snippet, query).toContain(marker);
    }
    const titled = search("use this token for the release")[0]!;
    expect(titled.title).toBe("rotate [redacted:github-token] before friday");
    expect(search("deploy key payments box")[0]!.title).toBe("maps key [redacted:google-api-key]");
  });

  it("finds nothing when searching a secret's own value", () => {
    for (const s of PLANTED) expect(search(s.secret), s.detector).toEqual([]);
  });

  it("reads every conversation without a secret (recall conversation --json)", () => {
    const chat = search("deploy key payments box").find((h) => h.id.startsWith("chat:"))!;
    expect(chat.conversation).toMatch(new RegExp(`^chat:.+:${dyadChat}$`));
    const ids = [
      `claude:${SESSION}`,
      chat.conversation,
      `run:${bridgeRun}.log`,
      "decision:payments-auth",
      "bridge:payments-release",
    ];
    const seen: string[] = [];
    for (const id of ids) {
      const r = cli("conversation", id, "--json");
      expect(r.status, `${id}: ${r.stderr}`).toBe(0);
      expect(leaked(r.stdout), id).toEqual([]);
      seen.push(r.stdout);
    }
    const text = seen.join("\n");
    for (const marker of [
      "aws-secret-key",
      "stripe-key",
      "secret-assignment",
      "slack-token",
      "aws-access-key-id",
      "gitlab-token",
      "openai-key",
    ])
      expect(text).toContain(`[redacted:${marker}]`);
  });

  it("keeps every secret out of the index's derived tables", () => {
    const db = new Database(path.join(recallHome, "history.db"), { readonly: true });
    try {
      for (const sql of [
        "SELECT title || ' ' || body AS t FROM recall_documents",
        "SELECT text AS t FROM recall_records",
        "SELECT coalesce(title, '') AS t FROM recall_conversations",
        "SELECT alias AS t FROM recall_session_aliases",
        "SELECT value AS t FROM recall_meta",
      ])
        for (const row of db.prepare(sql).iterate() as Iterable<{ t: string }>)
          expect(leaked(row.t), sql).toEqual([]);
    } finally {
      db.close();
    }
  });

  it("returns no secret over MCP (search_history, get_conversation)", async () => {
    const { client } = await connectMcp(env, { name: "redaction-test" });
    try {
      const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;
      for (const query of ["payments", "token release", "slack notify", ...PLANTED.map((s) => s.secret)]) {
        const out = text(await client.callTool({ name: "search_history", arguments: { query, limit: 20 } }));
        // The caller's own query is echoed back; what the index returns is the hits.
        expect(leaked(JSON.stringify((JSON.parse(out) as { hits: unknown[] }).hits)), query).toEqual([]);
      }
      const page = text(
        await client.callTool({
          name: "get_conversation",
          arguments: { id: `claude:${SESSION}`, limit: 100 },
        }),
      );
      expect(leaked(page)).toEqual([]);
      expect(page).toContain("[redacted:aws-secret-key]");
    } finally {
      await client.close();
    }
  });

  it("returns no secret over HTTP: search, conversations, run logs and decision history", async () => {
    const serve: ServeProcess = await startServe(env);
    try {
      const cookie = await login(serve.loginUrl);
      const get = async (p: string) => {
        const r = await httpRequest(serve.port, p, { headers: { Cookie: cookie } });
        expect(r.status, `${p}: ${r.body}`).toBe(200);
        return r.body;
      };
      const bodies = [
        await get("/api/search?q=payments&limit=20"),
        await get(`/api/conversations/${encodeURIComponent(`claude:${SESSION}`)}`),
        await get(`/api/runs/${bridgeRun}`),
        await get("/api/decisions/payments-auth/history"),
      ];
      for (const body of bodies) expect(leaked(body)).toEqual([]);
      expect(bodies[2]).toContain("[redacted:url-password]");
      expect(bodies[3]).toContain("[redacted:jwt]");
      expect(bodies[3]).toContain("[redacted:openai-key]");
    } finally {
      await serve.stop();
    }
  });

  it("exports the retained bytes exactly, and a redacted copy with --redact", () => {
    const exact = cli("export", `claude:${SESSION}`);
    expect(exact.status, exact.stderr).toBe(0);
    expect(exact.stdout).toBe(transcript());
    const out = path.join(t.dir, "redacted.jsonl");
    const redacted = cli("export", `claude:${SESSION}`, "--redact", "--out", out);
    expect(redacted.status, redacted.stderr).toBe(0);
    const copy = readFileSync(out, "utf8");
    expect(leaked(copy)).toEqual([]);
    expect(copy).toContain("[redacted:github-token]");
    // Still one JSON record per line.
    for (const l of copy.trim().split("\n")) expect(() => JSON.parse(l)).not.toThrow();
  });

  it("rebuilds the index's text when config.json's redaction changes, and says so while it waits", () => {
    // An allow-listed value is no secret: after the rebuild it is searchable again.
    writeConfig({ allow: [stripe.secret] });
    expect(cli("status").stdout).toMatch(/redaction settings changed since the index was written/);
    expect(cli("index").status).toBe(0);
    expect(search(stripe.secret).map((h) => h.id)).toContain(`transcript:claude:${SESSION}:t2`);
    expect(cli("status").stdout).not.toMatch(/redaction settings changed/);

    // Off: loud in status, and the text is rebuilt without redaction.
    writeConfig({ enabled: false });
    const status = cli("status", "--json");
    expect(JSON.parse(status.stdout).redaction).toMatchObject({ enabled: false, rebuildPending: true });
    expect(cli("status").stdout).toMatch(/redaction is OFF/);
    expect(cli("index").status).toBe(0);
    expect(search(github.secret).length).toBeGreaterThan(0);

    // On again: once the rebuild is done, no old text is served.
    writeConfig({});
    expect(cli("index").status).toBe(0);
    expect(cli("status").stdout).not.toMatch(/redaction is OFF|redaction settings changed/);
    for (const s of PLANTED) expect(search(s.secret), s.detector).toEqual([]);
    const conversation = cli("conversation", `claude:${SESSION}`, "--json");
    expect(leaked(conversation.stdout)).toEqual([]);
  });

  it("never wrote a secret to stderr", () => {
    expect(leaked(outputs.filter((_, i) => i % 2 === 1).join("\n"))).toEqual([]);
  });
});
