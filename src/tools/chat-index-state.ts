/** What a chat tool may ask of the indexer: read-only questions, never "index now". */
export interface ChatIndexState {
  waitForIdle(ms: number): Promise<boolean>;
  isPending(appId: number, excludeChatId: number | null): boolean;
}
