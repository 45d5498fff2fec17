import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDyadDb, type DyadFixture } from "../../test/helpers/dyad.js";
import { tempDir } from "../../test/helpers/tmp.js";
import { attachChatSearch, type ChatSearch } from "../app/attach-chat-search.js";
import type { ReadChatOutput } from "./read-chat.js";
import { runTool } from "./run.js";

// Built at run time so no scanner takes this file for a leaked token.
const TOKEN = `ghp_${"a1B2c3D4e5".repeat(3)}x9Y8z7W6`;

describe("read_chat and a secret in a chat's title", () => {
  let f: DyadFixture;
  let chat: ChatSearch;
  let cleanup = () => {};
  let chatId = 0;
  beforeAll(async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    f = createDyadDb(t.dir);
    const app = f.app("secrets");
    chatId = f.chat(app, `deploy with ${TOKEN}`);
    f.message(chatId, "user", "the deploy worked");
    chat = await attachChatSearch(f.db, { file: f.file });
    await chat.indexer.drain();
  });
  afterAll(() => {
    f?.db.close();
    cleanup();
  });

  it("shows the host's title redacted, as indexed titles are", async () => {
    const tool = chat.tools.find((t) => t.name === "read_chat")!;
    const raw = await runTool(tool, { chat_id: chatId }, { appId: 1 });
    expect(raw).not.toContain(TOKEN);
    expect((JSON.parse(raw) as ReadChatOutput).chat.title).toBe("deploy with [redacted:github-token]");
  });
});
