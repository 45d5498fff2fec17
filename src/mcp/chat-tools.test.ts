import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDyadDb } from "../../test/helpers/dyad.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { RecallError } from "../core/errors.js";
import { bindChatApp } from "../sources/dyad/apps.js";
import { openDatabase } from "../store/open.js";
import { runTool } from "../tools/run.js";
import { createStandaloneChatTools } from "./chat-tools.js";

describe("standalone chat tools (bound to the server's project)", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("read_chat reads the bound app's chats from the Dyad database, read-only, and nothing else", async () => {
    const t = tempDir("recall-chat-tools-");
    const appsDir = path.join(t.dir, "apps");
    mkdirSync(path.join(appsDir, "mine", ".git"), { recursive: true });
    const dyad = createDyadDb(t.dir);
    const mine = Number(
      dyad.db.prepare("INSERT INTO apps (name, path) VALUES ('mine', 'mine')").run().lastInsertRowid,
    );
    const other = dyad.app("other");
    const chat = dyad.chat(mine, "Mine");
    const foreign = dyad.chat(other, "Theirs");
    dyad.message(chat, "user", "first question");
    dyad.message(chat, "assistant", "first answer");
    dyad.message(foreign, "user", "not yours");
    const history = openDatabase(path.join(t.dir, "history.db"));
    const binding = bindChatApp([{ name: "dyad", file: dyad.file, appsDir }], path.join(appsDir, "mine"))!;
    const chatTools = createStandaloneChatTools(history, binding);
    cleanup = () => {
      chatTools.close();
      history.close();
      dyad.db.close();
      t.cleanup();
    };
    expect(chatTools.context).toEqual({ appId: mine, chatSource: "dyad" });
    const readChat = chatTools.tools.find((x) => x.name === "read_chat")!;
    const page = JSON.parse(await runTool(readChat, { chat_id: chat }, chatTools.context)) as {
      messages: { text: string }[];
    };
    expect(page.messages.map((m) => m.text)).toEqual(["first question", "first answer"]);
    await expect(runTool(readChat, { chat_id: foreign }, chatTools.context)).rejects.toSatisfy(
      (e: unknown) => e instanceof RecallError && e.kind === "NotFound",
    );
  });

  it.todo(
    "search_chats over history.db scoped by (source, app id), once search/chats.ts takes a source scope",
  );
});
