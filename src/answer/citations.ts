/**
 * A bracketed token counts as a citation when it has a hit id's shape (`<kind>:<rest>`), so
 * ordinary brackets in prose ("[1]", "[sic]") are neither citations nor errors. An id-shaped
 * word that names no hit sent is an error wherever it stands.
 */
const BRACKET = /\[([^[\]\n]{1,400})\]/g;
const ID_SHAPE = /^(message|decision|run|transcript|approval|progress|report|chat):\S/;

export interface CitationCheck {
  /** Known ids in order of first citation. */
  cited: string[];
  /** Id-shaped citations that name no hit that was sent. */
  unknown: string[];
}

/** An id-shaped word anywhere in the text (a trailing sentence mark is not part of it). */
const ID_WORD =
  /(?<![\w:/.#@-])(?:message|decision|run|transcript|approval|progress|report|chat):[^\s[\](),;]+/g;

export function checkCitations(text: string, sentIds: readonly string[]): CitationCheck {
  const known = new Set(sentIds);
  const cited: string[] = [];
  const unknown: string[] = [];
  const note = (id: string) => {
    const list = known.has(id) ? cited : unknown;
    if (!list.includes(id)) list.push(id);
  };
  for (const match of text.matchAll(BRACKET)) {
    const inside = (match[1] ?? "").trim();
    // Decision topics may hold spaces or commas, so a whole known id wins over splitting.
    const pieces = known.has(inside) ? [inside] : inside.split(/\s*[,;]\s*/);
    for (const piece of pieces) {
      if (known.has(piece)) note(piece);
      else if (!ID_SHAPE.test(piece)) continue;
      else {
        // Models also group citations with spaces: [message:1 message:2].
        const words = piece.split(/\s+/);
        if (words.length > 1 && words.every((w) => ID_SHAPE.test(w))) words.forEach(note);
        else note(piece);
      }
    }
  }
  // An id named outside brackets, or beside a known one inside them, must be a hit too: the known
  // ids (some hold spaces) are taken out first, then every id-shaped word left is checked.
  let rest = text;
  for (const id of [...known].sort((a, b) => b.length - a.length)) rest = rest.split(id).join(" ");
  for (const match of rest.matchAll(ID_WORD)) note(match[0].replace(/[.,:;!?'"]+$/, ""));
  return { cited, unknown };
}
