import {
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { FormError, IntentButton } from '#app/components/forms.tsx'
import { formatDate, termHref } from '#app/components/terms/ui.tsx'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { Pager } from '#app/components/pager.tsx'
import { useT } from '#app/root.tsx'
import {
  CandidateParamsSchema,
  ListCandidatesQuerySchema,
  PromoteCandidateSchema,
} from '#app/schemas/candidates.ts'
import {
  dismissCandidate,
  listCandidates,
  promoteCandidate,
} from '#app/services/candidates/candidates.server.ts'
import { CANDIDATE_STATUSES } from '#domain/content.ts'

export const meta: MetaFunction = () => [{ title: 'Candidates · Glossary' }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const url = new URL(request.url)
  const raw = Object.fromEntries([...url.searchParams].filter(([, v]) => v !== ''))
  const query = ListCandidatesQuerySchema.safeParse(raw)
  return listCandidates(query.success ? query.data : ListCandidatesQuerySchema.parse({}))
}

export async function action({ request }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  const form = await request.formData()
  const intent = String(form.get('intent'))
  const params = CandidateParamsSchema.safeParse({ id: form.get('id') })
  if (!params.success) return invalidForm({ ok: false as const, intent, formError: 'No such candidate.' })
  const id = params.data.id
  if (intent === 'dismiss') {
    return formAction(async () => {
      const candidate = await dismissCandidate({ id, actorId: actor.user.id })
      return { ok: true as const, intent, id, text: candidate.text }
    })
  }
  if (intent === 'promote') {
    const optional = (name: string) => String(form.get(name) ?? '').trim() || undefined
    const parsed = parseForm(PromoteCandidateSchema, { name: optional('name'), slug: optional('slug') })
    if (!parsed.ok) return invalidForm({ ...parsed, intent, id })
    return formAction(async () => {
      const { term } = await promoteCandidate({ id, input: parsed.data, actorId: actor.user.id })
      // The new term needs completing: continue in its editor.
      return redirect(`${termHref(term.slug)}/edit`)
    })
  }
  return invalidForm({ ok: false as const, intent, formError: 'Unknown action.' })
}

export default function CandidatesPage() {
  const t = useT()
  const { items, total, page, pageSize } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as
    | {
        ok: boolean
        intent?: string
        id?: string
        text?: string
        formError?: string
        fieldErrors?: Record<string, string>
      }
    | undefined
  const [params] = useSearchParams()
  const busy = useNavigation().state !== 'idle'
  const status = params.get('status') ?? 'open'
  return (
    <section>
      <h1>{t('candidates.title')}</h1>
      <p className="muted">{t('candidates.intro')}</p>
      <Form method="get" className="filters">
        <label>
          {t('common.search')}
          <input type="search" name="q" defaultValue={params.get('q') ?? ''} />
        </label>
        <label>
          {t('term.status')}
          <select name="status" defaultValue={status}>
            {CANDIDATE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`candidates.status.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t('common.filter')}</button>
      </Form>
      {result?.ok && result.intent === 'dismiss' ? (
        <p role="status" className="notice">
          {fill(t('candidates.dismissed'), { text: result.text ?? '' })}
        </p>
      ) : null}
      {result && !result.ok ? <FormError result={result} /> : null}
      {result && !result.ok && result.fieldErrors ? (
        <p className="error">{Object.values(result.fieldErrors).join(' ')}</p>
      ) : null}

      {items.length === 0 ? (
        <p className="muted">{t('candidates.none')}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>{t('candidates.text')}</th>
              <th>{t('candidates.count')}</th>
              <th>{t('candidates.seen')}</th>
              <th>{t('common.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((c) => (
              <tr key={c.id} data-candidate={c.text}>
                <td>
                  <strong>{c.text}</strong>
                  <div className="muted small">
                    {formatDate(c.firstSeenAt)} – {formatDate(c.lastSeenAt)}
                  </div>
                </td>
                <td>{c.count}</td>
                <td>
                  <ul className="sightings">
                    {c.sightings.map((s, i) => (
                      <li key={i} className="small">
                        <span className="badge">{t(`candidates.source.${s.source}` as MessageKey)}</span> …
                        {s.context}…
                      </li>
                    ))}
                  </ul>
                </td>
                <td>
                  {c.status === 'open' ? (
                    <>
                      <Form method="post" className="stack compact">
                        <input type="hidden" name="intent" value="promote" />
                        <input type="hidden" name="id" value={c.id} />
                        <input name="name" defaultValue={c.text} aria-label={`${t('term.name')} ${c.text}`} />
                        <button type="submit" disabled={busy}>
                          {t('candidates.promote')}
                        </button>
                      </Form>
                      <IntentButton
                        intent="dismiss"
                        fields={{ id: c.id }}
                        className="secondary"
                        disabled={busy}
                      >
                        {t('candidates.dismiss')}
                      </IntentButton>
                    </>
                  ) : c.promotedTermId ? (
                    <Link to={termHref(c.promotedTermId)}>{t('candidates.openTerm')}</Link>
                  ) : (
                    <span className="muted">{t(`candidates.status.${c.status}` as MessageKey)}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager total={total} page={page} pageSize={pageSize} />
    </section>
  )
}
