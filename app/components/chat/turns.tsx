import { Link } from '@remix-run/react'
import { Fragment, type ReactNode } from 'react'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'
import type { Citation, SearchMode } from './chat-types.ts'

/**
 * A conversation's turns as the chat page shows them: the question, the answer as plain text whose `[G1]`
 * labels link to their evidence, the evidence as chips (label and title) that open the term at the cited
 * revision or the wiki page / meeting record at the cited passage, with a "record of past discussion" badge on
 * meeting records and an "incomplete" one on terms that are not official, and the notice of a keyword-only
 * answer. The answer is an LLM's text: it is only ever rendered as React text nodes, never as HTML.
 */

/** The chat's error codes, worded for the reader (the same words with and without JavaScript). */
export function problemKey(code: string): MessageKey {
  switch (code) {
    case 'rag_not_ready':
      return 'chat.error.notReady'
    case 'rag_provider_error':
      return 'chat.error.provider'
    case 'rate_limited':
      return 'chat.error.rateLimited'
    case 'network':
      return 'chat.error.network'
    default:
      return 'chat.error.other'
  }
}

/** `[G1]`, `[M2]`, `[W1]`, also several in one bracket: `[G1, W2]`. */
const LABELS = /\[([GMW]\d+(?:\s*[,;]\s*[GMW]\d+)*)\]/g

/**
 * Only our own addresses are linked (a citation's url is the service's, always a path), and as the app's own links:
 * following one and coming back stays in the page, the conversation shown as it was.
 */
const isPath = (url: string) => url.startsWith('/') && !url.startsWith('//')

/** One paragraph of the answer with its labels turned into links to the matching citation. */
function linkLabels(text: string, byLabel: ReadonlyMap<string, Citation>): ReactNode[] {
  const parts: ReactNode[] = []
  let at = 0
  for (const match of text.matchAll(LABELS)) {
    parts.push(text.slice(at, match.index))
    const labels = match[1]!.split(/\s*[,;]\s*/)
    parts.push(
      <Fragment key={match.index}>
        [
        {labels.map((label, i) => {
          const citation = byLabel.get(label)
          const shown =
            citation && isPath(citation.url) ? (
              <Link to={citation.url} className="chat-cite" title={citation.title} data-label={label}>
                {label}
              </Link>
            ) : (
              label
            )
          return (
            <Fragment key={label}>
              {i > 0 ? ', ' : null}
              {shown}
            </Fragment>
          )
        })}
        ]
      </Fragment>,
    )
    at = match.index + match[0].length
  }
  parts.push(text.slice(at))
  return parts
}

/** The answer's text: paragraphs at blank lines, line breaks kept, labels linked once the citations are known. */
export function AnswerText({ text, citations }: { text: string; citations: readonly Citation[] }) {
  const byLabel = new Map(citations.map((c) => [c.label, c]))
  const paragraphs = text.split(/\n{2,}/).filter((p) => p.trim() !== '')
  return (
    <div className="chat-text" data-testid="chat-answer-text">
      {paragraphs.map((paragraph, i) => (
        <p key={i}>{linkLabels(paragraph, byLabel)}</p>
      ))}
    </div>
  )
}

/** The evidence of one answer, as chips with what kind of source each is and how far it is authoritative. */
export function Citations({ citations }: { citations: readonly Citation[] }) {
  const t = useT()
  if (citations.length === 0) return null
  return (
    <div className="chat-sources">
      <h3 className="chat-sources-title">{t('chat.sources')}</h3>
      <ul>
        {citations.map((citation) => (
          <li key={citation.label} data-testid="chat-citation" data-type={citation.type}>
            {isPath(citation.url) ? (
              <Link to={citation.url} className={`chip chip-${citation.type}`} data-label={citation.label}>
                <span className="chip-label">{citation.label}</span> {citation.title}
              </Link>
            ) : (
              <span className={`chip chip-${citation.type}`} data-label={citation.label}>
                <span className="chip-label">{citation.label}</span> {citation.title}
              </span>
            )}{' '}
            <span className="muted small">
              {t(`chat.source.${citation.type}`)}
              {citation.revision !== undefined
                ? ` · ${fill(t('chat.revision'), { revision: citation.revision })}`
                : ''}
              {citation.meetingDate ? ` · ${citation.meetingDate.slice(0, 10)}` : ''}
            </span>
            {citation.type === 'meeting' ? (
              <span className="badge chat-past">{t('chat.badge.pastDiscussion')}</span>
            ) : null}
            {citation.type === 'term' && !citation.official ? (
              <span className="badge status-needs_completion">{t('chat.badge.incomplete')}</span>
            ) : null}
            {citation.snippet ? <p className="chat-snippet muted small">{citation.snippet}</p> : null}
          </li>
        ))}
      </ul>
    </div>
  )
}

/** The notice of an answer found without vector search. */
export function KeywordNotice({ mode }: { mode: SearchMode | null }) {
  const t = useT()
  if (mode !== 'keyword') return null
  return (
    <p className="notice chat-keyword" data-testid="chat-keyword-mode">
      {t('chat.keywordMode')}
    </p>
  )
}

/** A question as asked. */
export function QuestionTurn({ text }: { text: string }) {
  const t = useT()
  return (
    <li className="chat-turn chat-question" data-testid="chat-question">
      <p className="chat-who">{t('chat.you')}</p>
      <p className="chat-text">{text}</p>
    </li>
  )
}

/** An answer: streaming (`streaming`, no citations yet), whole, or the note that it failed. */
export function AnswerTurn(props: {
  text: string
  citations: readonly Citation[]
  searchMode: SearchMode | null
  failed?: boolean
  streaming?: boolean
}) {
  const t = useT()
  return (
    <li
      className="chat-turn chat-answer"
      data-testid="chat-answer"
      data-state={props.streaming ? 'streaming' : props.failed ? 'failed' : 'done'}
      aria-busy={props.streaming ? true : undefined}
    >
      <p className="chat-who">{t('chat.answer')}</p>
      {props.failed ? (
        <p className="error">{t('chat.failedTurn')}</p>
      ) : (
        <>
          {props.text === '' && props.streaming ? <p className="muted">{t('chat.answering')}</p> : null}
          <AnswerText text={props.text} citations={props.citations} />
          <KeywordNotice mode={props.searchMode} />
          <Citations citations={props.citations} />
        </>
      )}
    </li>
  )
}
