import { appendAudit } from "../../app/audit.js";
import { conversationMarkdown } from "../../app/browse.js";
import { isRecallError } from "../../core/errors.js";
import { singleParams } from "../params.js";
import type { Route } from "../route.js";
import { decodeSegment } from "../segment.js";

/**
 * GET /api/export/<conversation id>: the conversation as a markdown download (read-mode text as
 * get_conversation gives it). Audited like a read: the conversation id, never its text.
 */
export const exportRoute: Route = {
  method: "GET",
  pattern: /^\/api\/export\/([^/]+)$/,
  handle({ params, query, services }) {
    singleParams(query, []);
    const id = decodeSegment(params[0]!, "id");
    const started = performance.now();
    const audit = (ok: boolean, records: number, errorKind: string | null) =>
      appendAudit(services.home, {
        at: services.now(),
        surface: "http",
        tool: "export_markdown",
        ok,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        results: records,
        truncated: false,
        indexStatus: null,
        errorKind,
        returned: ok ? [id] : [],
      });
    try {
      const { markdown, records } = conversationMarkdown(services.db, id);
      audit(true, records, null);
      const file = `recall-${id.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 120)}.md`;
      return {
        body: markdown,
        type: "text/markdown; charset=utf-8",
        headers: { "Content-Disposition": `attachment; filename="${file}"` },
      };
    } catch (error) {
      audit(false, 0, isRecallError(error) ? error.kind : "Internal");
      throw error;
    }
  },
};
