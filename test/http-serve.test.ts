/**
 * `recall serve` as a real process beside a real `recall mcp`: it joins the broker election
 * (follows while the MCP server indexes, takes over when it exits), its API answers exactly what
 * the MCP tools answer for the same input, and the "agents consulted" feed shows the MCP calls.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createServer } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { createDemoHome, type DemoHome } from "./helpers/demo-home.js";
import { connectMcp } from "./helpers/mcp.js";
import { httpRequest, login, startServe, type ServeProcess } from "./helpers/http.js";

let demo: DemoHome;
let client: Client | null = null;
let serve: ServeProcess;
let cookie = "";

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const get = async (p: string) => {
  const r = await httpRequest(serve.port, p, { headers: { Cookie: cookie } });
  return { status: r.status, body: JSON.parse(r.body) as Record<string, unknown> };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 20_000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

beforeAll(async () => {
  demo = await createDemoHome({ seed: 41, messages: 500 });
  const indexed = runCli(["index"], demo.env);
  expect(indexed.status, indexed.stderr).toBe(0);
  const mcp = await connectMcp(demo.env, { name: "http-serve-test" });
  client = mcp.client;
  const mcpErr = mcp.stderr;
  await until("the MCP server to become the broker", () => /elected broker/.test(mcpErr()));
  serve = await startServe({ ...demo.env, RECALL_SESSION_ID: "" });
  cookie = await login(serve.loginUrl);
});

afterAll(async () => {
  await client?.close();
  await serve?.stop();
  demo?.cleanup();
});

describe("recall serve beside recall mcp", () => {
  it("prints a loopback dashboard URL with a one-time token and follows the running broker", async () => {
    expect(serve.loginUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{20,}$/);
    await sleep(500);
    expect(serve.stderr()).not.toMatch(/elected broker/);
    expect(serve.stderr()).not.toMatch(/warning/);
  });

  it("answers /api/search with exactly search_history's JSON over MCP for the same query", async () => {
    const cases: [string, Record<string, unknown>][] = [
      ["q=decision", { query: "decision" }],
      [
        "q=cache%20decision&limit=5&agent=codex",
        { query: "cache decision", limit: 5, filters: { agent: "codex" } },
      ],
      ["q=decision&kind=chat&limit=3", { query: "decision", filters: { kind: "chat" }, limit: 3 }],
      [`q=${demo.manifest.needles[0]!.token}`, { query: demo.manifest.needles[0]!.token }],
    ];
    for (const [query, args] of cases) {
      // Coverage is part of both answers and the broker republishes it every few seconds, so
      // the two calls are repeated back to back until they saw the same publication.
      let equal = false;
      let http: unknown;
      let mcp: unknown;
      for (let attempt = 0; attempt < 5 && !equal; attempt++) {
        mcp = JSON.parse(text(await client!.callTool({ name: "search_history", arguments: args })));
        http = (await get(`/api/search?${query}`)).body;
        equal = JSON.stringify(http) === JSON.stringify(mcp);
      }
      expect(http, query).toEqual(mcp);
      expect(((http as { hits: unknown[] }).hits ?? []).length, query).toBeGreaterThan(0);
    }
  });

  it("answers /api/conversations with exactly get_conversation's JSON over MCP", async () => {
    const hit = (
      (await get("/api/search?q=decision&limit=1&kind=transcript")).body.hits as { conversation: string }[]
    )[0]!;
    const mcp = JSON.parse(
      text(
        await client!.callTool({ name: "get_conversation", arguments: { id: hit.conversation, limit: 4 } }),
      ),
    ) as { next: string };
    const http = (await get(`/api/conversations/${encodeURIComponent(hit.conversation)}?limit=4`)).body;
    expect(http).toEqual(mcp);
    const mcp2 = JSON.parse(
      text(
        await client!.callTool({
          name: "get_conversation",
          arguments: { id: hit.conversation, limit: 4, after: mcp.next },
        }),
      ),
    );
    const http2 = (
      await get(
        `/api/conversations/${encodeURIComponent(hit.conversation)}?after=${encodeURIComponent(mcp.next)}&limit=4`,
      )
    ).body;
    expect(http2).toEqual(mcp2);
  });

  it("lists the MCP tool calls in the agents-consulted feed, with returned conversations and no query", async () => {
    const token = demo.manifest.needles[1]!.token;
    const out = JSON.parse(
      text(await client!.callTool({ name: "search_history", arguments: { query: token } })),
    ) as {
      hits: { conversation: string }[];
    };
    const calls = (await get("/api/consulted?limit=20")).body.calls as {
      surface: string;
      tool: string;
      results: number;
      returned: string[];
    }[];
    const latest = calls.find((c) => c.surface === "mcp")!;
    expect(latest.tool).toBe("search_history");
    expect(latest.results).toBe(out.hits.length);
    expect(latest.returned).toEqual([...new Set(out.hits.map((h) => h.conversation))]);
    expect(JSON.stringify(calls)).not.toContain(token);
  });

  it("takes over as the broker when the MCP server exits, and stops cleanly on SIGTERM", async () => {
    await client!.close();
    client = null;
    await until("serve to take over the broker", () => /elected broker/.test(serve.stderr()), 30_000);
    expect((await get("/api/status")).status).toBe(200);
    expect(await serve.stop()).toBe(0);
  });
});

describe("recall serve flags", () => {
  it("rejects a bad --port with a usage error (exit 2)", () => {
    const r = runCli(["serve", "--port", "http"], demo.env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--port must be a whole number/);
  });

  it("fails clearly when the port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const r = runCli(["serve", "--port", String(port)], demo.env);
    blocker.close();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`port ${port} is in use`));
  });

  it("binds another address only when asked, with a warning on stderr", async () => {
    const wide = await startServe(demo.env, ["serve", "--port", "0", "--host", "0.0.0.0"]);
    try {
      await until("the warning", () => /warning: serving on 0\.0\.0\.0/.test(wide.stderr()), 5_000);
      // The Host guard still applies: the loopback names with the port pass, others do not.
      const ok = await httpRequest(wide.port, "/api/status");
      expect(ok.status).toBe(403); // no cookie yet
      expect(JSON.parse(ok.body).error).toMatch(/not logged in/);
      // This machine's own addresses name it too when it listens on every interface.
      const own = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && i.family === "IPv4" && !i.internal);
      if (own) {
        const viaAddress = await httpRequest(wide.port, "/api/status", {
          headers: { Host: `${own.address}:${wide.port}` },
        });
        expect(JSON.parse(viaAddress.body).error).toMatch(/not logged in/);
      }
      const foreign = await httpRequest(wide.port, "/api/status", {
        headers: { Host: `example.com:${wide.port}` },
      });
      expect(JSON.parse(foreign.body).error).toBe("forbidden host");
    } finally {
      expect(await wide.stop()).toBe(0);
    }
  });
});
