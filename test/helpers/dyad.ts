import path from "node:path";
import { openDatabase, type Db } from "../../src/store/open.js";
import { DYAD_DDL } from "../../src/demo/dyad-schema.js";

/** A Dyad-shaped host database with tiny insert helpers, as the chat-search plan's test harness. */
export interface DyadFixture {
  db: Db;
  file: string;
  app(name?: string): number;
  chat(appId: number, title?: string | null, createdAt?: number): number;
  message(
    chatId: number,
    role: "user" | "assistant",
    content: string,
    options?: { createdAt?: number; isCompactionSummary?: boolean; aiMessagesJson?: string },
  ): number;
}

export function createDyadDb(dir: string, name = "sqlite.db"): DyadFixture {
  const file = path.join(dir, name);
  const db = openDatabase(file);
  for (const ddl of DYAD_DDL) db.exec(ddl);
  let clock = 1_700_000_000;
  const insertApp = db.prepare("INSERT INTO apps (name, path) VALUES (?, ?)");
  const insertChat = db.prepare("INSERT INTO chats (app_id, title, created_at) VALUES (?, ?, ?)");
  const insertMessage = db.prepare(
    "INSERT INTO messages (chat_id, role, content, is_compaction_summary, created_at, ai_messages_json) VALUES (?, ?, ?, ?, ?, ?)",
  );
  return {
    db,
    file,
    app: (appName = "app") => Number(insertApp.run(appName, appName).lastInsertRowid),
    chat: (appId, title = "chat", createdAt = clock) =>
      Number(insertChat.run(appId, title, createdAt).lastInsertRowid),
    message: (chatId, role, content, options = {}) =>
      Number(
        insertMessage.run(
          chatId,
          role,
          content,
          options.isCompactionSummary ? 1 : 0,
          options.createdAt ?? (clock += 1),
          options.aiMessagesJson ?? null,
        ).lastInsertRowid,
      ),
  };
}
