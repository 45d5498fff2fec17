/**
 * The demo's showcase: a few hand-written Claude Code sessions of the kind recall exists for (a
 * decision and why, a failure and its fix, a requirement), dated after the generated year so they
 * open the dashboard's recent list, and a sample search (`SHOWCASE_QUERY`) that finds one. The
 * generated corpus around them is built for volume and shape; these are what a first-time user
 * reads. Every line is fixed text, so the corpus stays deterministic.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { claudeSlug, DEMO_HOME, iso, YEAR_MS } from "./plan.js";

interface ShowcaseTurn {
  prompt: string;
  /** What the assistant says before running the command. */
  reply: string;
  command: string;
  output: string;
  /** The assistant's answer after the output (markdown). */
  answer: string;
}

interface ShowcaseSession {
  id: string;
  project: string;
  title: string;
  turns: ShowcaseTurn[];
}

/** The sample search `npm start` prints: words a user would type, found in the first session. */
export const SHOWCASE_QUERY = "session store decision";

const SESSIONS: readonly ShowcaseSession[] = [
  {
    id: "5e55a0f1-0b1e-4c3a-9a57-51de0c15e001",
    project: `${DEMO_HOME}/code/billing-api`,
    title: "Move the session store from Redis to Postgres",
    turns: [
      {
        prompt:
          "Our Redis box for sessions keeps getting evicted under memory pressure and people get logged out. Should we move the session store to Postgres? We already run Postgres 16 for everything else.",
        reply: "Let me check how sessions are stored today and how many are live.",
        command: "rg -n 'connect-redis|sessionStore' src/ && redis-cli info keyspace",
        output:
          "src/server/session.ts:4:import RedisStore from 'connect-redis';\nsrc/server/session.ts:18:  store: new RedisStore({ client: redis, ttl: 86400 }),\n# Keyspace\ndb0:keys=48211,expires=48211,avg_ttl=61893421",
        answer:
          "About 48k live sessions, all with a TTL, behind one `RedisStore`.\n\n**Decision: move the session store to Postgres**, in an `UNLOGGED` table `sessions(sid text primary key, data jsonb, expires_at timestamptz)` with an index on `expires_at`:\n\n- one less service to run and page on; Postgres is already backed up and monitored;\n- `UNLOGGED` skips the WAL, so writes cost about what Redis cost us; losing sessions on a crash only logs people out, which is what evictions do today;\n- expired rows are deleted every 10 minutes by a cron job, not on read.\n\nRejected: a bigger Redis instance (it hides the eviction problem and costs more) and JWTs (we need server-side logout).",
      },
      {
        prompt: "OK, do it. Keep the Redis store behind a flag for one release in case we need to roll back.",
        reply: "I'll add the migration and the store, then run the session tests.",
        command: "npm test -- src/server/session",
        output:
          " PASS  src/server/session.test.ts\n  session store\n    ✓ keeps a session across requests (41 ms)\n    ✓ expires a session after its TTL (12 ms)\n    ✓ falls back to Redis when SESSION_STORE=redis (9 ms)\n\nTests: 3 passed, 3 total",
        answer:
          "Done:\n\n1. `migrations/0031_sessions.sql` creates the unlogged `sessions` table and its index.\n2. `src/server/pg-session-store.ts` implements the store (`get`, `set`, `destroy`, `touch`).\n3. `SESSION_STORE=redis` keeps the old store for one release; the default is `postgres`.\n\nAll three session tests pass.",
      },
    ],
  },
  {
    id: "5e55a0f1-0b1e-4c3a-9a57-51de0c15e002",
    project: `${DEMO_HOME}/code/billing-api`,
    title: "Flaky webhook retry test",
    turns: [
      {
        prompt:
          "test/webhooks/retry.test.ts fails about one run in five on CI with a timeout. Can you find out why?",
        reply: "Let me run it in a loop to reproduce the failure.",
        command: "for i in $(seq 20); do npx vitest run test/webhooks/retry.test.ts || break; done",
        output:
          " FAIL  test/webhooks/retry.test.ts > retries a failed delivery with backoff\nError: Test timed out in 5000ms.\n ❯ src/webhooks/deliver.ts:57:11\n    55|   const delay = backoff(attempt);\n    56|   // jitter\n    57|   await sleep(delay + Math.random() * 1000);",
        answer:
          "Found it. The test uses fake timers, but `deliver.ts` adds **jitter with `Math.random()`** and awaits a real `sleep`, so when the random jitter pushes the total past the advanced fake time the promise never resolves and the test times out.\n\nFix: pass the clock and the random source into `deliver()`, as we do for the rate limiter, so the test controls both:\n\n```ts\nexport async function deliver(event: WebhookEvent, deps = { sleep, random: Math.random }) {\n```\n\nThe backoff stays exponential with full jitter, capped at 5 attempts and 60 s.",
      },
      {
        prompt: "Apply the fix and run it 50 times.",
        reply: "Applying the change and looping the test.",
        command:
          "for i in $(seq 50); do npx vitest run test/webhooks/retry.test.ts --silent || exit 1; done; echo all 50 passed",
        output: "all 50 passed",
        answer:
          "The webhook retry test passed 50 runs in a row after injecting `sleep` and `random`. I also removed the `retry: 3` we had added to that test in CI as a workaround.",
      },
    ],
  },
  {
    id: "5e55a0f1-0b1e-4c3a-9a57-51de0c15e003",
    project: `${DEMO_HOME}/work/data-pipeline`,
    title: "Migration 0042_enable_rls.sql fails on staging",
    turns: [
      {
        prompt:
          "The deploy to staging failed on migration 0042_enable_rls.sql. Here is the job: deploy #1873.",
        reply: "Let me run the migration against the staging database to see the error.",
        command: 'psql "$STAGING_URL" -v ON_ERROR_STOP=1 -f migrations/0042_enable_rls.sql',
        output:
          "BEGIN\nALTER TABLE\npsql:migrations/0042_enable_rls.sql:7: ERROR:  must be owner of table invoices\nROLLBACK",
        answer:
          "The migration runs as `deploy`, which is not the owner of `invoices` (the owner is `billing_owner`), and only the owner can `ALTER TABLE … ENABLE ROW LEVEL SECURITY`.\n\nOptions:\n\n- run the migrations as `billing_owner` (what production already does), or\n- `GRANT billing_owner TO deploy` on staging.\n\nI recommend the first: staging should run migrations the way production does. Requirement for the policies themselves: every tenant-scoped table gets `USING (tenant_id = current_setting('app.tenant_id')::uuid)`, and the API sets `app.tenant_id` per transaction.",
      },
    ],
  },
  {
    id: "5e55a0f1-0b1e-4c3a-9a57-51de0c15e004",
    project: `${DEMO_HOME}/code/search-ui`,
    title: "Rate limiting the public search API",
    turns: [
      {
        prompt:
          "We need rate limiting on /api/search before the launch. Requirement from the product side: a free key gets 60 requests a minute, a paid key 600, and clients must know when to retry.",
        reply: "Let me see what middleware the API has today.",
        command: "ls src/api/middleware && rg -n 'app.use' src/api/server.ts",
        output:
          "auth.ts\ncors.ts\nrequest-id.ts\nsrc/api/server.ts:21:app.use(requestId());\nsrc/api/server.ts:22:app.use(cors());\nsrc/api/server.ts:23:app.use(auth());",
        answer:
          "**Decision: a token bucket per API key**, after `auth()` so the key is known:\n\n| plan | rate | burst |\n|------|------|-------|\n| free | 60/min | 20 |\n| paid | 600/min | 100 |\n\nOver the limit the API answers **429** with a `Retry-After` header in seconds and `RateLimit-Remaining` on every response. Buckets live in the Postgres `rate_buckets` table we already use for quotas, so no new service. A fixed window was rejected: it lets a client send twice the limit across a window boundary.",
      },
    ],
  },
  {
    id: "5e55a0f1-0b1e-4c3a-9a57-51de0c15e005",
    project: `${DEMO_HOME}/code/design-system`,
    title: "Build broke after the Node 20 upgrade",
    turns: [
      {
        prompt: "Since we moved CI to Node 20 the build fails. Can you look?",
        reply: "Running the build to see the error.",
        command: "npm run build",
        output:
          "> design-system@4.2.0 build\n> node scripts/build-icons.js && tsc -p .\n\nError [ERR_REQUIRE_ESM]: require() of ES Module node_modules/node-fetch/src/index.js from scripts/build-icons.js not supported.\nInstead change the require of index.js to a dynamic import() which is available in all CommonJS modules.",
        answer:
          "`scripts/build-icons.js` does `require('node-fetch')`, and a dependabot bump pulled in node-fetch 3, which is ESM-only. Node 20 has a global `fetch`, so the fix is to **drop node-fetch** and use the built-in one:\n\n```diff\n- const fetch = require('node-fetch');\n```\n\nI removed the dependency from `package.json`; `npm run build` now passes on Node 20 and 18.",
      },
    ],
  },
];

/** Writes the showcase sessions into Claude Code's projects folder; returns how many messages. */
export function generateShowcase(
  claudeConfigDir: string,
  baseTime: number,
): { sessions: number; messages: number } {
  // Just after the generated year, a day apart: the newest sessions of the corpus.
  let at = baseTime + YEAR_MS + 24 * 3600_000;
  let messages = 0;
  for (const session of SESSIONS) {
    const lines: string[] = [];
    let parent: string | null = null;
    const line = (type: "user" | "assistant", message: object, extra: object = {}) => {
      // Unique across sessions too: recall (as Claude Code) takes a repeated uuid for a copied line.
      const uuid = `${session.id.slice(0, 24)}${session.id.slice(-3)}${String(lines.length).padStart(9, "0")}`;
      lines.push(
        JSON.stringify({
          parentUuid: parent,
          isSidechain: false,
          userType: "external",
          cwd: session.project,
          sessionId: session.id,
          version: "2.1.30",
          gitBranch: "main",
          type,
          message,
          uuid,
          timestamp: iso(at),
          ...extra,
        }),
      );
      parent = uuid;
      at += 20_000;
      messages++;
    };
    for (const [t, turn] of session.turns.entries()) {
      const toolId = `toolu_showcase${session.id.slice(-3)}${t}`;
      const assistant = (content: object[]) => ({
        id: `msg_showcase${session.id.slice(-3)}${t}${content.length}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content,
      });
      line("user", { role: "user", content: turn.prompt });
      line(
        "assistant",
        assistant([
          { type: "text", text: turn.reply },
          { type: "tool_use", id: toolId, name: "Bash", input: { command: turn.command } },
        ]),
      );
      line(
        "user",
        { role: "user", content: [{ type: "tool_result", tool_use_id: toolId, content: turn.output }] },
        { toolUseResult: { stdout: turn.output, stderr: "", interrupted: false } },
      );
      line("assistant", assistant([{ type: "text", text: turn.answer }]));
      at += 15 * 60_000;
    }
    lines.push(JSON.stringify({ type: "ai-title", aiTitle: session.title, sessionId: session.id }));
    const dir = path.join(claudeConfigDir, "projects", claudeSlug(session.project));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${session.id}.jsonl`), `${lines.join("\n")}\n`);
    at += 24 * 3600_000;
  }
  return { sessions: SESSIONS.length, messages };
}
