/**
 * The chat service's answer shapes as the pages receive them, for the browser code that renders turns and
 * reads the streamed answer (type-only: nothing of the server module reaches the browser).
 */
export type {
  ChatAnswer,
  ChatStart,
  ChatTurn,
  Citation,
  CitationType,
  SearchMode,
} from '#app/services/chat/chat.server.ts'
