import { data } from '@remix-run/node'
import { expectedError } from '#app/lib/errors.server.ts'
import { PatchRelationSchema, ReverseRelationSchema } from '#app/schemas/relations.ts'
import { patchRelation, reverseRelation } from '#app/services/relations/write.server.ts'
import type { SessionActor } from './session.server.ts'

/**
 * The review buttons' form post (approve, reject, reverse), shared by the review queue and the term page.
 * A conflict comes back as `{ conflict }` with the code, so the page can explain it next to the relation.
 */
export async function handleRelationReview(actor: SessionActor, form: FormData) {
  const id = String(form.get('id') ?? '')
  const intent = String(form.get('intent') ?? '')
  const version = String(form.get('version') ?? '')
  const relationActor = { id: actor.user.id, role: actor.user.role }
  try {
    if (intent === 'reverse') {
      await reverseRelation({ id, input: ReverseRelationSchema.parse({ version }), actor: relationActor })
    } else {
      await patchRelation({
        id,
        input: PatchRelationSchema.parse({ action: intent, version }),
        actor: relationActor,
      })
    }
    return { ok: true as const, id }
  } catch (thrown) {
    const error = expectedError(thrown)
    if (error) {
      return data(
        { ok: false as const, id, code: error.code, message: error.message },
        { status: error.status },
      )
    }
    throw thrown
  }
}
