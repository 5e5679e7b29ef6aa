import { data, type AppLoadContext } from '@remix-run/node'
import { expectedError } from '#app/lib/errors.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { returnPath } from '#app/lib/return-path.ts'
import { PatchRelationSchema, ReverseRelationSchema } from '#app/schemas/relations.ts'
import { getRelation } from '#app/services/relations/read.server.ts'
import { patchRelation, reverseRelation } from '#app/services/relations/write.server.ts'
import { formErrorOf } from './forms.server.ts'
import type { SessionActor } from './session.server.ts'

const FLASH_OF: Record<string, MessageKey> = {
  approved: 'flash.relationApproved',
  rejected: 'flash.relationRejected',
  reverse: 'flash.relationReversed',
}

/**
 * The review buttons' form post (approve, reject, reverse) of the review queue. A success answers with a
 * redirect back to the page the buttons were on (its filters kept) carrying a flash that names the relation
 * ("Relation approved: A → B"), so the card that leaves the list is accounted for, with or without
 * JavaScript. A conflict comes back as `{ ok: false, id, code }`, so the page can explain it next to the
 * relation.
 */
export async function handleRelationReview(
  actor: SessionActor,
  form: FormData,
  from: { request: Request; context: AppLoadContext },
) {
  const id = String(form.get('id') ?? '')
  const intent = String(form.get('intent') ?? '')
  const version = String(form.get('version') ?? '')
  const relationActor = { id: actor.user.id, role: actor.user.role }
  try {
    let shown = id
    if (intent === 'reverse') {
      const reversed = await reverseRelation({
        id,
        input: ReverseRelationSchema.parse({ version }),
        actor: relationActor,
      })
      shown = reversed.id
    } else {
      await patchRelation({
        id,
        input: PatchRelationSchema.parse({ action: intent, version }),
        actor: relationActor,
      })
    }
    const relation = await getRelation({ id: shown })
    return redirectWithFlash(
      backTo(from.request),
      {
        kind: 'success',
        message: FLASH_OF[intent] ?? 'flash.relationApproved',
        values: { source: relation.source.name, target: relation.target.name },
      },
      from.context,
    )
  } catch (thrown) {
    const error = expectedError(thrown)
    if (error) {
      return data(
        // in the reader's words, by the one form adapter (a code the page names itself keeps its own label)
        { ok: false as const, id, code: error.code, message: formErrorOf(error) },
        { status: error.status },
      )
    }
    throw thrown
  }
}

/** The address the form was posted to, without Remix's `index` marker: the page with its filters. */
function backTo(request: Request): string {
  const url = new URL(request.url)
  url.searchParams.delete('index')
  return returnPath(`${url.pathname}${url.search}`, { fallback: '/relations' })
}
