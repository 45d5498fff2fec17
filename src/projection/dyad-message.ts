import { sinkFor, type ProjectionSink } from "./bounds.js";
import { scanDyadContent, type DyadScanHandler, type DyadTagOpening } from "./dyad-parser.js";
import { classifyTag, keepHeaderLine, metadataLine, tagLabel } from "./dyad-tag-policy.js";
import type { Redaction } from "./redact/index.js";
import type { ChatMessageInput, Projection, ProjectionMode } from "./types.js";

/**
 * Projects one Dyad chat message (role, content, isCompactionSummary) into text.
 *
 * - User messages: the text as typed, normalised and bounded. Literal `<dyad-*>` text in a user
 *   message is the user's own words, never interpreted as markup. (Base64 runs and data-URL
 *   payloads are dropped, as everywhere.)
 * - Assistant messages: prose kept; tags handled by class (dyad-tag-policy.ts): kept bodies
 *   (summaries, compaction, plans, questionnaires, blueprint, findings, status, step limit,
 *   output), dropped tags (`think`, recall's own cards), and everything else reduced to a
 *   metadata line from allowlisted attributes. Read mode adds short status attributes.
 * - Compaction summaries are projected like any assistant message (their `<dyad-compaction>`
 *   body is kept as high-signal text) and flagged.
 * - Search mode makes each CJK character a token of its own (cjk.ts); read mode does not.
 */
export function projectChatMessage(
  input: ChatMessageInput,
  mode: ProjectionMode,
  redaction?: Redaction,
): Projection & { isCompactionSummary: boolean } {
  const sink = sinkFor(mode, redaction);
  if (input.role === "user") {
    sink.write(input.content);
  } else {
    projectAssistantContent(input.content, mode, sink);
  }
  return { ...sink.finish(), isCompactionSummary: input.isCompactionSummary };
}

/** Streams the projection of assistant content with Dyad markup into `sink`. */
export function projectAssistantContent(content: string, mode: ProjectionMode, sink: ProjectionSink): void {
  const handler: DyadScanHandler = {
    text(s, start, end) {
      sink.write(s, start, end, true);
    },
    boundary() {
      sink.newline();
    },
    openTag(tag: DyadTagOpening) {
      const cls = classifyTag(tag.name);
      if (cls === "drop") {
        sink.newline();
        return "suppress";
      }
      if (cls === "keep" && tag.terminated && tag.wellFormed) {
        const header = keepHeaderLine(tag.name, tag.attributes);
        sink.newline();
        if (header) {
          sink.write(header);
          sink.newline();
        }
        return "keep";
      }
      // Metadata class, or a kept-body tag whose opening is malformed (fail closed).
      const line = tag.terminated ? metadataLine(tag.name, tag.attributes, mode) : `[${tagLabel(tag.name)}]`;
      sink.newline();
      sink.write(line);
      sink.newline();
      return "suppress";
    },
  };
  scanDyadContent(content, handler);
}
