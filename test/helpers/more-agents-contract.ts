/**
 * Contract fixtures (helpers/source-contract.ts) for Cline, Kilo Code and Continue, each in the
 * format its CLI writes (docs/sources/<agent>.md), written here in the tests' own words.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Env } from "../../src/platform/paths.js";
import { clineSessionsDir } from "../../src/sources/cline/paths.js";
import { continueSessionsDir } from "../../src/sources/continue/paths.js";
import { kiloDataDir } from "../../src/sources/kilo/paths.js";
import { kiloSession, kiloText, openKiloDb } from "./kilo-db.js";
import type { ContractFixture } from "./source-contract.js";

const T = Date.UTC(2026, 5, 1);

function put(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

// ---------------------------------------------------------------- Cline

const clineFile = (env: Env, id: string) => path.join(clineSessionsDir(env), id, `${id}.messages.json`);
const clineMessages = (id: string, texts: { text: string; role?: string }[]) =>
  JSON.stringify({
    version: 1,
    sessionId: id,
    messages: texts.map((m, i) => ({
      id: `msg_${id}_${i}`,
      role: m.role ?? "user",
      content: [
        {
          type: "text",
          text: m.role === "assistant" ? m.text : `<user_input mode="act">${m.text}</user_input>`,
        },
      ],
      ts: T + i,
    })),
  });
function clineSession(env: Env, id: string, texts: { text: string; role?: string }[]): void {
  put(
    path.join(clineSessionsDir(env), id, `${id}.json`),
    JSON.stringify({ session_id: id, cwd: "/nonexistent/cline", model: "m", metadata: { title: id } }),
  );
  put(clineFile(env, id), clineMessages(id, texts));
}
const clineLate = clineMessages("c-gamma", [{ text: "late tapirword" }]);

export const clineFixture: ContractFixture = {
  write(env) {
    clineSession(env, "c-alpha", [
      { text: "first ocelotword" },
      { text: "then pangolinword", role: "assistant" },
    ]);
    clineSession(env, "c-beta", [{ text: "other quokkaword" }]);
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "c-beta", tokens: ["quokkaword"] },
  remove: (env) => rmSync(path.join(clineSessionsDir(env), "c-alpha"), { recursive: true }),
  // A messages file read while Cline writes it whole.
  torn: {
    begin: (env) => put(clineFile(env, "c-gamma"), clineLate.slice(0, 40)),
    finish: (env) => put(clineFile(env, "c-gamma"), clineLate),
    token: "tapirword",
  },
  oversized: {
    write: (env) => clineSession(env, "c-huge", [{ text: `walrusword ${"lorem ipsum ".repeat(20_000)}` }]),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};

// ---------------------------------------------------------------- Continue

const continueFile = (env: Env, id: string) => path.join(continueSessionsDir(env), `${id}.json`);
const continueSession = (id: string, texts: { text: string; role?: string }[]) =>
  JSON.stringify({
    sessionId: id,
    title: "Untitled Session",
    workspaceDirectory: "/nonexistent/continue",
    history: texts.map((m) => ({ message: { role: m.role ?? "user", content: m.text }, contextItems: [] })),
  });
const continueLate = continueSession("k-gamma", [{ text: "late tapirword" }]);

export const continueFixture: ContractFixture = {
  write(env) {
    put(
      continueFile(env, "k-alpha"),
      continueSession("k-alpha", [
        { text: "first ocelotword" },
        { text: "then pangolinword", role: "assistant" },
      ]),
    );
    put(continueFile(env, "k-beta"), continueSession("k-beta", [{ text: "other quokkaword" }]));
    put(
      path.join(continueSessionsDir(env), "sessions.json"),
      // Continue lists every session there, with the one time it records (see record.ts).
      JSON.stringify(
        ["k-alpha", "k-beta", "k-gamma", "k-huge"].map((sessionId, i) => ({
          sessionId,
          title: "Untitled Session",
          dateCreated: String(T + i * 1000),
        })),
      ),
    );
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "k-beta", tokens: ["quokkaword"] },
  remove: (env) => rmSync(continueFile(env, "k-alpha")),
  torn: {
    begin: (env) => put(continueFile(env, "k-gamma"), continueLate.slice(0, 40)),
    finish: (env) => put(continueFile(env, "k-gamma"), continueLate),
    token: "tapirword",
  },
  oversized: {
    write: (env) =>
      put(
        continueFile(env, "k-huge"),
        continueSession("k-huge", [{ text: `walrusword ${"lorem ipsum ".repeat(20_000)}` }]),
      ),
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};

// ---------------------------------------------------------------- Kilo Code

const kiloFile = (env: Env) => path.join(kiloDataDir(env), "kilo.db");

/** A database has no torn last line: each row is committed whole. */
export const kiloFixture: ContractFixture = {
  write(env) {
    const db = openKiloDb(kiloFile(env));
    kiloSession(db, "ses_a", T);
    kiloSession(db, "ses_b", T);
    kiloText(db, "ses_a", "msg_a1", "user", "first ocelotword", T + 1);
    kiloText(db, "ses_a", "msg_a2", "assistant", "then pangolinword", T + 2);
    kiloText(db, "ses_b", "msg_b1", "user", "other quokkaword", T + 3);
    db.close();
  },
  tokens: ["ocelotword", "pangolinword", "quokkaword"],
  forget: { session: "ses_b", tokens: ["quokkaword"] },
  remove: (env) => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(kiloFile(env) + suffix, { force: true });
  },
  oversized: {
    write: (env) => {
      const db = openKiloDb(kiloFile(env));
      kiloText(db, "ses_a", "msg_a4", "user", `walrusword ${"lorem ipsum ".repeat(20_000)}`, T + 4);
      db.close();
    },
    token: "walrusword",
    bytes: 200_000,
    maxLineBytes: 64 * 1024,
  },
};
