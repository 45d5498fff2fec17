/**
 * Records are stored in recall_record_rows, which names each record's conversation by its
 * integer `ref` (schema v14); `recall_records` is the view readers read, with the conversation's
 * id. Writers write the rows and name a conversation by its id through this subquery (one probe
 * of the conversations' id index), so they keep taking ids as parameters.
 */
/** A conversation's ref, by its id: the statement's next positional parameter. */
export const CONVERSATION_REF = "(SELECT ref FROM recall_conversations WHERE id = ?)";

/** The same, by the named parameter `@name`. */
export const conversationRefOf = (name: string): string =>
  `(SELECT ref FROM recall_conversations WHERE id = @${name})`;
