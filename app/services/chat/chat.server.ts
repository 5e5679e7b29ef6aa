import crypto from 'node:crypto'
import { AppError } from '#app/lib/errors.server.ts'
import { getConfig } from '#app/lib/config.server.ts'
import { passageHref } from '#app/lib/passage.ts'
import { chatModelFor, loadLlmSettings, type LlmSettings } from '#app/services/ai/llm-settings.server.ts'
import { throwProviderFailure, type ChatMessage } from '#app/services/ai/provider.server.ts'
import { newTraceId } from '#app/services/ai/recorder.server.ts'
import { enforceRateLimit } from '#app/services/rate-limit/rate-limit.server.ts'
import {
  retrievalReadiness,
  retrieveEvidence,
  type EvidenceSet,
  type MeetingEvidence,
  type Readiness,
  type TermEvidence,
  type WikiEvidence,
} from '#app/services/search/retrieval.server.ts'
import { selectConfig } from '#app/services/search/store.server.ts'
import { em } from '#db/orm.ts'
import { isUuid } from '#domain/ids.ts'
import type { EntityManager } from '@mikro-orm/postgresql'
import {
  appendMessage,
  deleteConversationRow,
  deleteConversationsOf,
  insertConversation,
  selectConversation,
  selectConversations,
  selectMessages,
  selectRecentMessages,
  type MessageRow,
} from './store.server.ts'

/**
 * The chatbot (issue 29, spec part 6; decision 029): a signed-in user's question answered by the configured AI
 * (LLM) provider from cited evidence only — glossary terms (G), wiki pages (W) and meeting records (M) found by
 * the retrieval service — and the user's private history. The question is stored before the model is asked,
 * so it stays in the conversation when the model fails. One trace id per question is shared by its embedding,
 * reranker and LLM AI run rows; prompts and answers are never logged nor put in AI run rows.
 */

export type CitationType = 'term' | 'meeting' | 'wiki'

export interface Citation {
  /** G1, G2… for terms; M1… meetings; W1… wiki pages (numbered per type, per answer). */
  label: string
  type: CitationType
  title: string
  /** Terms: the slug the term URLs use; wiki: the page's slug. */
  slug?: string
  id?: string
  /** The term's / wiki page's / meeting's revision cited. */
  revision?: number
  /** ISO date of a meeting. */
  meetingDate?: string
  /** Opens the term at the cited revision, or the wiki page / meeting at the cited passage. */
  url: string
  snippet: string
  /** Active terms and published wiki pages: true; needs-completion terms and meetings: false. */
  official: boolean
}

export type SearchMode = 'hybrid' | 'keyword'

export interface ChatAnswer {
  conversationId: string
  answer: string
  citations: Citation[]
  searchMode: SearchMode
  traceId: string
}

export interface ChatTurn {
  id: string
  role: 'user' | 'assistant'
  content: string
  createdAt: string
  citations: Citation[]
  searchMode: SearchMode | null
  traceId: string | null
  /** An assistant turn that could not be answered (the LLM failed): no content. */
  failed: boolean
}

export interface ConversationSummary {
  id: string
  title: string
  createdAt: string
  updatedAt: string
}

export interface Conversation extends ConversationSummary {
  turns: ChatTurn[]
}

/** What a streamed answer knows before its first piece of text (the SSE `meta` event). */
export interface ChatStart {
  conversationId: string
  searchMode: SearchMode
  traceId: string
}

export { CHAT_MESSAGE_MAX } from '#app/schemas/chat.ts'
/** Earlier turns of the conversation sent with a question, and the characters kept of each. */
export const HISTORY_TURNS = 6
export const HISTORY_TURN_CHARS = 2000
/** A conversation's title: its first question, cut to this many characters. */
export const TITLE_MAX = 80
/** The conversations a user's list shows (newest first). */
export const CONVERSATION_LIST_MAX = 200

/** The rate limit's bucket (docs/decisions/005-rate-limits.md): questions per user per minute. */
const CHAT_BUCKET = 'chat:user'

// ── The prompt ─────────────────────────────────────────────────────────────────────────────────────────────

/**
 * The evidence rules. No bracketed example label appears here: the model is to cite only the labels of the
 * evidence blocks.
 */
export const SYSTEM_PROMPT = [
  "You are the assistant of this organization's terminology glossary. Answer the user's question only from the evidence blocks of the last message; never from other knowledge.",
  'Cite every statement with the label of its evidence block in square brackets, as it stands before the block (a G label is a glossary term, a W label a wiki page, an M label a meeting record). Cite only labels that appear in the evidence.',
  'Meeting records (M) are records of past discussion. They never approve or establish current policy or the current meaning of a term; when you use one, say that it records a past discussion, and prefer glossary terms and wiki pages.',
  'A glossary term marked INCOMPLETE still needs completion: say that its entry is incomplete when you use it. Terms marked OFFICIAL and published wiki pages are the official reference.',
  'If the evidence does not answer the question, say that the glossary has no answer to it. Answer in the language of the question, briefly.',
].join('\n')

/** A term's evidence block: what it is, its revision and status, its current definition and the matched passage. */
function termBlock(label: string, term: TermEvidence): string {
  const status = term.official ? 'OFFICIAL' : 'INCOMPLETE (needs completion, not official)'
  const lines = [
    `[${label}] Glossary term "${term.name}" (revision ${term.revision}, ${status})`,
    `Definition: ${term.definition || '(none yet)'}`,
  ]
  if (term.snippet !== term.definition) lines.push(`Passage: ${term.snippet}`)
  return lines.join('\n')
}

function wikiBlock(label: string, page: WikiEvidence): string {
  return `[${label}] Wiki page "${page.title}" (revision ${page.revision}, published)\n${page.content}`
}

function meetingBlock(label: string, meeting: MeetingEvidence): string {
  return `[${label}] Meeting record "${meeting.title}" of ${meeting.meetingDate.slice(0, 10)} (a record of past discussion, not approval of current policy)\n${meeting.content}`
}

/** The evidence with its labels, numbered per type in retrieval order. */
interface Labelled {
  blocks: string[]
  citations: Citation[]
}

const snippetOf = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text)

/** Labels the evidence and writes its citations (each with the address that opens it at what was cited). */
export function labelEvidence(evidence: EvidenceSet): Labelled {
  const blocks: string[] = []
  const citations: Citation[] = []
  evidence.terms.forEach((term, i) => {
    const label = `G${i + 1}`
    blocks.push(termBlock(label, term))
    citations.push({
      label,
      type: 'term',
      title: term.name,
      slug: term.slug,
      id: term.id,
      revision: term.revision,
      url: `/terms/${encodeURIComponent(term.slug)}?revision=${term.revision}`,
      snippet: snippetOf(term.snippet),
      official: term.official,
    })
  })
  evidence.wiki.forEach((page, i) => {
    const label = `W${i + 1}`
    blocks.push(wikiBlock(label, page))
    citations.push({
      label,
      type: 'wiki',
      title: page.title,
      slug: page.slug,
      id: page.id,
      revision: page.revision,
      url: passageHref(`/wiki/${encodeURIComponent(page.slug)}`, page),
      snippet: snippetOf(page.content),
      official: true,
    })
  })
  evidence.meetings.forEach((meeting, i) => {
    const label = `M${i + 1}`
    blocks.push(meetingBlock(label, meeting))
    citations.push({
      label,
      type: 'meeting',
      title: meeting.title,
      id: meeting.id,
      revision: meeting.revision,
      meetingDate: meeting.meetingDate,
      url: passageHref(`/meetings/${encodeURIComponent(meeting.id)}`, meeting),
      snippet: snippetOf(meeting.content),
      official: false,
    })
  })
  return { blocks, citations }
}

/**
 * The messages of one question: the evidence rules, the conversation's recent turns (bounded; failed turns left
 * out), and the question with its labelled evidence blocks.
 */
export function buildPrompt(
  question: string,
  history: readonly MessageRow[],
  blocks: readonly string[],
): ChatMessage[] {
  const turns = history
    .filter((m) => !m.failed && m.content !== '')
    .map((m): ChatMessage => ({
      role: m.role,
      content:
        m.content.length > HISTORY_TURN_CHARS ? `${m.content.slice(0, HISTORY_TURN_CHARS)}…` : m.content,
    }))
  const evidence = blocks.length > 0 ? blocks.join('\n\n') : '(No evidence was found for this question.)'
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    ...turns,
    { role: 'user', content: `Evidence:\n\n${evidence}\n\nQuestion: ${question}` },
  ]
}

/** The citations the answer refers to by label; all of them when it names none (what it was based on). */
export function citedBy(answer: string, citations: readonly Citation[]): Citation[] {
  const named = new Set([...answer.matchAll(/\[([GWM]\d+)\]/g)].map((m) => m[1]))
  const cited = citations.filter((c) => named.has(c.label))
  return cited.length > 0 ? cited : [...citations]
}

// ── Asking ─────────────────────────────────────────────────────────────────────────────────────────────────

/** A conversation of the user, or 404 (another user's conversation is not found, never forbidden). */
async function ownConversation(manager: EntityManager, userId: string, id: string) {
  const conversation = isUuid(id) ? await selectConversation(manager, userId, id) : undefined
  if (!conversation) throw new AppError('not_found', 'No such conversation.')
  return conversation
}

const titleOf = (question: string) => {
  const line = question.replace(/\s+/g, ' ').trim()
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line
}

/** Why the chatbot cannot answer now (`details.reason` of its 503 `rag_not_ready`). */
export type ChatUnavailableReason = 'chat_off' | 'no_llm'

const CHAT_UNAVAILABLE: Record<ChatUnavailableReason, string> = {
  chat_off:
    'The chatbot is switched off. An administrator can switch it on in the search settings (chatEnabled).',
  no_llm:
    'The chatbot has no AI provider configured. An administrator can set one in the AI provider settings.',
}

type ChatAvailability =
  | { available: true; readiness: Readiness; llm: LlmSettings }
  | { available: false; reason: ChatUnavailableReason }

/**
 * Whether the chatbot can answer: switched on (`chatEnabled`) and an AI provider set. The one rule, for a
 * question (`askChat`) and for the chat page, which says so before anyone asks. Whether search by meaning can
 * run is read on the way: it decides the retrieval, and when it can, its settings carry the switch.
 */
export async function chatAvailability(manager: EntityManager = em()): Promise<ChatAvailability> {
  const readiness = await retrievalReadiness()
  const chatEnabled = readiness.ready
    ? readiness.settings.chatEnabled
    : (await selectConfig(manager)).chatEnabled
  if (!chatEnabled) return { available: false, reason: 'chat_off' }
  const llm = await loadLlmSettings(manager)
  if (!llm) return { available: false, reason: 'no_llm' }
  return { available: true, readiness, llm }
}

/**
 * Asks the chatbot. `onText` receives the streamed answer's pieces (the LLM call then streams); `onStart` is
 * called once the evidence is chosen, just before the model is asked. Throws AppError: `rate_limited` (429)
 * over the user's limit; `rag_not_ready` (503) when `chatEnabled` is false or no LLM is configured;
 * `not_found` for a conversation that is not the user's; `rag_provider_error` (502) when the LLM fails (the
 * question stays stored, followed by a failed assistant turn) or the embedding provider fails in a way that
 * needs an administrator.
 */
export async function askChat(input: {
  userId: string
  message: string
  conversationId?: string
  onText?: (text: string) => void
  onStart?: (start: ChatStart) => void
}): Promise<ChatAnswer> {
  const manager = em()
  await enforceRateLimit(CHAT_BUCKET, input.userId, getConfig().rateLimits.chatPerMinute, 60)
  const availability = await chatAvailability(manager)
  if (!availability.available) {
    throw new AppError('rag_not_ready', CHAT_UNAVAILABLE[availability.reason], {
      details: { reason: availability.reason },
    })
  }
  const { readiness, llm } = availability
  const question = input.message
  let conversationId = input.conversationId
  const history = conversationId
    ? (await ownConversation(manager, input.userId, conversationId),
      await selectRecentMessages(manager, conversationId, HISTORY_TURNS))
    : []
  const isNew = !conversationId
  conversationId ??= crypto.randomUUID()
  const traceId = newTraceId()
  const turn = { conversationId, userId: input.userId, traceId }
  // A new conversation and its first question are written together: never a conversation without it.
  await manager.transactional(async (tx) => {
    if (isNew)
      await insertConversation(tx, {
        id: turn.conversationId,
        userId: input.userId,
        title: titleOf(question),
      })
    await appendMessage(tx, {
      ...turn,
      id: crypto.randomUUID(),
      role: 'user',
      content: question,
      citations: [],
      searchMode: null,
      failed: false,
    })
  })
  let searchMode: SearchMode | null = null
  try {
    const evidence = await retrieveEvidence({ question, traceId, readiness })
    searchMode = evidence.mode
    const { blocks, citations } = labelEvidence(evidence)
    const messages = buildPrompt(question, history, blocks)
    input.onStart?.({ conversationId, searchMode, traceId })
    const model = chatModelFor(llm, { purpose: 'chat', traceId })
    const options = { temperature: llm.temperature, maxTokens: llm.maxTokens }
    const completion = input.onText
      ? await model.stream(messages, options, input.onText)
      : await model.complete(messages, options)
    const cited = citedBy(completion.text, citations)
    await appendMessage(manager, {
      ...turn,
      id: crypto.randomUUID(),
      role: 'assistant',
      content: completion.text,
      citations: cited,
      searchMode,
      failed: false,
    })
    return { conversationId, answer: completion.text, citations: cited, searchMode, traceId }
  } catch (error) {
    // The question stays, followed by a failed turn: the conversation shows it and it can be asked again there.
    await appendMessage(manager, {
      ...turn,
      id: crypto.randomUUID(),
      role: 'assistant',
      content: '',
      citations: [],
      searchMode,
      failed: true,
    })
    throw withConversation(error, conversationId)
  }
}

/**
 * A failure after the question was stored: a provider's as 502 `rag_provider_error`, any AppError with the
 * conversation's id in its details (so a client can open the conversation), anything else as it is.
 */
function withConversation(error: unknown, conversationId: string): unknown {
  let failure = error
  try {
    throwProviderFailure(error, 'The AI provider failed')
  } catch (mapped) {
    failure = mapped
  }
  if (!(failure instanceof AppError)) return failure
  return new AppError(failure.code, failure.message, {
    details: { ...failure.details, conversationId },
    headers: failure.headers,
    cause: failure.cause,
  })
}

// ── History ────────────────────────────────────────────────────────────────────────────────────────────────

/** The user's conversations, the one changed last first. */
export async function listConversations(userId: string): Promise<ConversationSummary[]> {
  return selectConversations(em(), userId, CONVERSATION_LIST_MAX)
}

/** One of the user's conversations with its turns; `not_found` when it is not the user's. */
export async function getConversation(userId: string, id: string): Promise<Conversation> {
  const manager = em()
  const conversation = await ownConversation(manager, userId, id)
  const turns = (await selectMessages(manager, id)).map((m): ChatTurn => ({
    ...m,
    citations: m.citations as Citation[],
  }))
  return { ...conversation, turns }
}

/** Deletes one of the user's conversations; `not_found` when it is not the user's. */
export async function deleteConversation(userId: string, id: string): Promise<void> {
  if (!isUuid(id) || !(await deleteConversationRow(em(), userId, id)))
    throw new AppError('not_found', 'No such conversation.')
}

/** The account-deletion step (users/delete-account.server.ts): every conversation of the user; how many. */
export function deleteChatHistory(tx: EntityManager, userId: string): Promise<number> {
  return deleteConversationsOf(tx, userId)
}
