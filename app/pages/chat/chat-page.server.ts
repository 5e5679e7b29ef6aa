import { data, redirect, type AppLoadContext } from '@remix-run/node'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { expectedError } from '#app/lib/errors.server.ts'
import { ChatRequestSchema } from '#app/schemas/chat.ts'
import {
  askChat,
  chatAvailability,
  deleteConversation,
  getConversation,
  listConversations,
} from '#app/services/chat/chat.server.ts'
import { isUuid } from '#domain/ids.ts'
import { formAction, invalidForm, orErrorPage, parseForm } from '../forms.server.ts'
import type { SessionActor } from '../session.server.ts'

/**
 * What the chat page (`/chat`, `/chat/:id`, issue 29 "Pages") reads and does, for its route: the user's
 * conversations and the open one (another user's is the 404 page, as the API answers), and the form posts of
 * a page without JavaScript — a question runs `askChat` and ends in a redirect to the conversation showing
 * the whole answer (post → redirect → get), a deletion in a redirect with its confirmation. With JavaScript
 * the page asks `POST /api/v1/chat` itself and streams the answer; these posts are then never made.
 */

const notFound = () => data({ message: 'Not found' }, { status: 404 })

/**
 * The page's data: the user's conversations (newest first) and the one at `id` with its turns; an id that is
 * not one of the user's conversations is the 404 page. `retry` is the question of a last turn that failed (the
 * provider did not answer), so the form offers it again. `unavailable` says why no question can be answered now
 * (chat switched off, no AI provider), so the page says so before anyone asks.
 */
export async function chatPageData(actor: SessionActor, id: string | undefined) {
  if (id !== undefined && !isUuid(id)) throw notFound()
  const [conversations, conversation, availability] = await Promise.all([
    listConversations(actor.user.id),
    id === undefined ? null : orErrorPage(() => getConversation(actor.user.id, id)),
    chatAvailability(),
  ])
  const turns = conversation?.turns ?? []
  const last = turns.at(-1)
  const retry =
    last?.role === 'assistant' && last.failed
      ? (turns.findLast((turn) => turn.role === 'user')?.content ?? '')
      : last?.role === 'user'
        ? last.content
        : ''
  const unavailable = availability.available ? null : availability.reason
  return { conversations, conversation, retry, unavailable }
}

/**
 * A question posted without JavaScript, in the conversation `id` (or a new one): the answer is stored and the
 * browser sent to the conversation. The provider failing keeps the question in its conversation: the browser
 * goes there too, where the failed turn and an error message show and the form offers the question again.
 * Other failures (chat off, too many questions, a refused field) are this page with the message and the
 * question kept in its box.
 */
export async function askFromForm(
  actor: SessionActor,
  id: string | undefined,
  form: FormData,
  context: AppLoadContext,
) {
  if (id !== undefined && !isUuid(id)) throw notFound()
  const message = String(form.get('message') ?? '')
  const parsed = parseForm(ChatRequestSchema, { message, ...(id ? { conversationId: id } : {}) })
  if (!parsed.ok) return invalidForm({ ...parsed, message })
  return formAction(
    async () => {
      try {
        const answer = await askChat({ userId: actor.user.id, ...parsed.data })
        return redirect(`/chat/${answer.conversationId}`)
      } catch (thrown) {
        const error = expectedError(thrown)
        const kept = error?.details?.conversationId
        const where = typeof kept === 'string' && isUuid(kept) ? kept : id
        if (error?.code === 'rag_provider_error' && where) {
          return redirectWithFlash(
            `/chat/${where}`,
            { kind: 'error', message: 'chat.error.provider' },
            context,
          )
        }
        throw thrown
      }
    },
    { message },
  )
}

/** Deletes the conversation `id` (the user's own; another's is the 404 page) and returns to `/chat`. */
export async function deleteFromForm(actor: SessionActor, id: string | undefined, context: AppLoadContext) {
  if (id === undefined || !isUuid(id)) throw notFound()
  const { title } = await orErrorPage(() => getConversation(actor.user.id, id))
  await orErrorPage(() => deleteConversation(actor.user.id, id))
  return redirectWithFlash(
    '/chat',
    { kind: 'success', message: 'flash.chatDeleted', values: { title } },
    context,
  )
}
