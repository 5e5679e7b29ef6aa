import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useLocation,
  useNavigate,
  useNavigation,
} from '@remix-run/react'
import { useEffect, useRef, useState, type FormEvent } from 'react'
import { askStreaming, AskError } from '#app/components/chat/ask-stream.ts'
import type { ChatAnswer } from '#app/components/chat/chat-types.ts'
import { AnswerTurn, problemKey, QuestionTurn } from '#app/components/chat/turns.tsx'
import { FieldError } from '#app/components/forms.tsx'
import { formatDate } from '#app/components/terms/ui.tsx'
import { fill } from '#app/lib/i18n.ts'
import { pageTitle } from '#app/lib/page-title.ts'
import { askFromForm, chatPageData, deleteFromForm } from '#app/pages/chat/chat-page.server.ts'
import type { FormFailure } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useOptionalUser, useT } from '#app/root.tsx'
import { CHAT_MESSAGE_MAX } from '#app/schemas/chat.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'chat.title') }]

/**
 * The chat (issue 29, "Pages"): `/chat` starts a conversation, `/chat/:id` continues one; beside it the user's
 * conversations, newest first. Without JavaScript the question form posts here and the answer is whole when
 * the page comes back (post → redirect → get). With JavaScript the page asks the API itself and shows the
 * answer as it streams in, then its evidence, and moves to the conversation's address. The home page's
 * question box arrives here the same two ways (a post, or a navigation carrying the question).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireUser(request)
  return chatPageData(actor, params.id)
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request)
  const form = await request.formData()
  if (form.get('intent') === 'delete') return deleteFromForm(actor, params.id, context)
  return askFromForm(actor, params.id, form, context)
}

/** A refused question's `Retry-After` (too many questions) reaches the browser with the page. */
export const headers: HeadersFunction = ({ actionHeaders, parentHeaders }) => {
  const answer = new Headers(parentHeaders)
  const retryAfter = actionHeaders.get('Retry-After')
  if (retryAfter) answer.set('Retry-After', retryAfter)
  return answer
}

/** What the home page's question box hands over when it navigates here with JavaScript (`question-box.tsx`). */
interface AskState {
  ask?: string
}

/** A question asked with JavaScript while its answer streams, and what came of it. */
interface Pending {
  question: string
  text: string
  answer: ChatAnswer | null
  /** The number of turns the conversation had when asked: the new ones are loaded once there are more. */
  turnsBefore: number
}

type ActionAnswer = (FormFailure & { message?: string }) | undefined

export default function ChatPage() {
  const t = useT()
  const { conversations, conversation, retry, unavailable } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>() as ActionAnswer
  const navigation = useNavigation()
  const navigate = useNavigate()
  const location = useLocation()
  const user = useOptionalUser()
  const [pending, setPending] = useState<Pending | null>(null)
  // What went wrong with a question asked with JavaScript, and the address it is shown at.
  const [problem, setProblem] = useState<{ code: string; path: string } | null>(null)
  const box = useRef<HTMLTextAreaElement>(null)
  const asked = useRef<string | null>(null)
  const busy = pending !== null && pending.answer === null

  const turns = conversation?.turns ?? []
  // The streamed answer gives way to the stored turns once the conversation's page has loaded them.
  const stored =
    pending?.answer != null &&
    conversation?.id === pending.answer.conversationId &&
    (turns.some((turn) => turn.traceId === pending.answer!.traceId) ||
      turns.length >= pending.turnsBefore + 2)
  useEffect(() => {
    if (stored) setPending(null)
  }, [stored])

  async function ask(question: string) {
    const conversationId = conversation?.id
    setProblem(null)
    setPending({ question, text: '', answer: null, turnsBefore: conversationId ? turns.length : 0 })
    try {
      const answer = await askStreaming({
        message: question,
        conversationId,
        onText: (piece) => setPending((p) => (p ? { ...p, text: p.text + piece } : p)),
      })
      setPending((p) => (p ? { ...p, text: answer.answer, answer } : p))
      // in place of the address asked at: going back leads to the page before, never to an empty chat
      navigate(`/chat/${answer.conversationId}`, { replace: true, preventScrollReset: true })
    } catch (error) {
      const failed = error instanceof AskError ? error.failure : { code: 'network', status: 0 }
      setPending(null)
      if (box.current) box.current.value = question
      // The question stays in its conversation when the provider failed: show it there.
      const kept = failed.conversationId ?? conversationId
      const path = kept ? `/chat/${kept}` : '/chat'
      setProblem({ code: failed.code, path })
      if (path !== location.pathname) navigate(path, { replace: true, preventScrollReset: true })
    }
  }

  // A question handed over by the home page's box (with JavaScript): asked once per arrival (the location's
  // key), never again on a re-render.
  useEffect(() => {
    const question = (location.state as AskState | null)?.ask
    if (!question || asked.current === location.key) return
    asked.current = location.key
    // The history entry forgets the question (React Router keeps a location's state as `usr`), so coming
    // back to it never asks again.
    window.history.replaceState({ ...(window.history.state as object), usr: null }, '')
    void ask(question)
  }, [location.key])

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    if (busy) return
    const question = box.current?.value.trim() ?? ''
    if (question === '') {
      box.current?.focus()
      return
    }
    if (box.current) box.current.value = ''
    void ask(question)
  }

  // Without JavaScript a refused question comes back in the box; after a failed answer, the failed question.
  const shownProblem =
    (problem?.path === location.pathname ? problem.code : null) ??
    (failure?.ok === false ? (failure.code ?? null) : null)
  const fieldMessage = failure?.ok === false ? failure.fieldErrors?.message : undefined
  const initial = failure?.message ?? retry
  const action = conversation ? `/chat/${conversation.id}` : '/chat'
  const submitting = navigation.state === 'submitting'

  return (
    <section className="chat">
      <h1>{t('chat.title')}</h1>
      <div className="chat-layout">
        <div className="chat-main">
          {conversation ? (
            <div className="chat-head">
              <h2 className="chat-conversation-title">{conversation.title}</h2>
              <DeleteConversation title={conversation.title} action={action} />
            </div>
          ) : (
            <p className="muted">{t('chat.intro')}</p>
          )}
          {turns.length === 0 && !pending ? <p className="muted">{t('chat.empty')}</p> : null}
          <ol className="chat-turns" aria-live="polite">
            {turns.map((turn) =>
              turn.role === 'user' ? (
                <QuestionTurn key={turn.id} text={turn.content} />
              ) : (
                <AnswerTurn
                  key={turn.id}
                  text={turn.content}
                  citations={turn.citations}
                  searchMode={turn.searchMode}
                  failed={turn.failed}
                />
              ),
            )}
            {pending && !stored ? (
              <>
                <QuestionTurn text={pending.question} />
                <AnswerTurn
                  text={pending.text}
                  citations={pending.answer?.citations ?? []}
                  searchMode={pending.answer?.searchMode ?? null}
                  streaming={pending.answer === null}
                />
              </>
            ) : null}
          </ol>
          {unavailable && !shownProblem ? (
            <div className="notice warning" data-testid="chat-unavailable" data-reason={unavailable}>
              <p>{t(`chat.unavailable.${unavailable}`)}</p>
              {user?.role === 'admin' ? (
                <p className="small">
                  {unavailable === 'chat_off' ? (
                    <Link to="/admin/search-settings">{t('chat.toSettings')}</Link>
                  ) : (
                    <Link to="/admin/ai-provider">{t('chat.toAiProvider')}</Link>
                  )}
                </p>
              ) : null}
            </div>
          ) : null}
          {shownProblem && !fieldMessage ? (
            <div
              role="alert"
              className="notice warning chat-problem"
              data-testid="chat-problem"
              data-code={shownProblem}
            >
              <p>{t(problemKey(shownProblem))}</p>
              {shownProblem === 'rag_not_ready' && user?.role === 'admin' ? (
                <p className="small">
                  <Link to="/admin/search-settings">{t('chat.toSettings')}</Link>
                </p>
              ) : null}
            </div>
          ) : null}
          <form method="post" action={action} className="chat-ask" onSubmit={onSubmit}>
            <label htmlFor="chat-message">{t('chat.question')}</label>
            <textarea
              id="chat-message"
              name="message"
              ref={box}
              rows={3}
              required
              maxLength={CHAT_MESSAGE_MAX}
              defaultValue={initial}
              key={`${conversation?.id ?? 'new'}:${initial}`}
              aria-invalid={fieldMessage ? true : undefined}
              aria-describedby={fieldMessage ? 'chat-message-hint chat-message-error' : 'chat-message-hint'}
            />
            <span id="chat-message-hint" className="muted small">
              {fill(t('chat.questionHint'), { max: CHAT_MESSAGE_MAX.toLocaleString('en') })}
            </span>
            <FieldError id="chat-message" message={fieldMessage} />
            <p>
              <button type="submit" disabled={busy || submitting || unavailable !== null}>
                {busy || submitting ? t('chat.answering') : t('chat.ask')}
              </button>
            </p>
          </form>
        </div>
        <aside className="chat-list" aria-labelledby="chat-conversations">
          <h2 id="chat-conversations">{t('chat.conversations')}</h2>
          <p>
            <Link to="/chat" className="button secondary" data-testid="chat-new">
              {t('chat.newConversation')}
            </Link>
          </p>
          {conversations.length === 0 ? (
            <p className="muted small">{t('chat.noConversations')}</p>
          ) : (
            <ol className="chat-conversations" data-testid="chat-conversations">
              {conversations.map((item) => (
                <li key={item.id}>
                  <Link
                    to={`/chat/${item.id}`}
                    aria-current={item.id === conversation?.id ? 'page' : undefined}
                  >
                    {item.title}
                  </Link>
                  <span className="muted small">
                    <time dateTime={item.updatedAt}>{formatDate(item.updatedAt)}</time>
                  </span>
                </li>
              ))}
            </ol>
          )}
        </aside>
      </div>
    </section>
  )
}

/** Deleting the open conversation asks first: a `<details>` that opens the confirmation (no JavaScript needed). */
function DeleteConversation({ title, action }: { title: string; action: string }) {
  const t = useT()
  return (
    <details className="chat-delete">
      <summary>{t('chat.delete')}</summary>
      <Form method="post" action={action} className="stack">
        <input type="hidden" name="intent" value="delete" />
        <p>{fill(t('chat.deleteConfirm'), { title })}</p>
        <button type="submit" className="danger">
          {t('chat.deleteSubmit')}
        </button>
      </Form>
    </details>
  )
}
