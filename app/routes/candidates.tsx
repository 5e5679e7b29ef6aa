import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import { useDataTable } from '#app/components/data-table.tsx'
import { FormError, IntentButton } from '#app/components/forms.tsx'
import { formatDate, termHref } from '#app/components/terms/ui.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'
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

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'candidates.title') }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'editor')
  const url = new URL(request.url)
  const raw = Object.fromEntries([...url.searchParams].filter(([, v]) => v !== ''))
  const query = ListCandidatesQuerySchema.safeParse(raw)
  return listCandidates(query.success ? query.data : ListCandidatesQuerySchema.parse({}))
}

/** The list the user acted on (its filter and page), to return to after an action. */
function listAddress(request: Request): string {
  const from = new URL(request.url).searchParams
  const kept = new URLSearchParams()
  for (const name of ['q', 'status', 'page']) {
    const value = from.get(name)
    if (value) kept.set(name, value)
  }
  return kept.size ? `/candidates?${kept}` : '/candidates'
}

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  const form = await request.formData()
  const intent = String(form.get('intent'))
  const params = CandidateParamsSchema.safeParse({ id: form.get('id') })
  if (!params.success) return invalidForm({ ok: false as const, intent, formError: 'No such candidate.' })
  const id = params.data.id
  if (intent === 'dismiss') {
    return formAction(async () => {
      const candidate = await dismissCandidate({ id, actorId: actor.user.id })
      return redirectWithFlash(
        listAddress(request),
        { kind: 'success', message: 'flash.candidateDismissed', values: { text: candidate.text } },
        context,
      )
    })
  }
  if (intent === 'promote') {
    const optional = (name: string) => String(form.get(name) ?? '').trim() || undefined
    const parsed = parseForm(PromoteCandidateSchema, { name: optional('name'), slug: optional('slug') })
    if (!parsed.ok) return invalidForm({ ...parsed, intent, id })
    return formAction(async () => {
      const { term } = await promoteCandidate({ id, input: parsed.data, actorId: actor.user.id })
      // The new term needs completing: continue in its editor.
      return redirectWithFlash(
        `${termHref(term.slug)}/edit`,
        { kind: 'success', message: 'flash.candidatePromoted', values: { name: term.name } },
        context,
      )
    })
  }
  return invalidForm({ ok: false as const, intent, formError: 'Unknown action.' })
}

export default function CandidatesPage() {
  const t = useT()
  const { items, total, page, pageSize } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as
    | { ok: boolean; intent?: string; id?: string; formError?: string; fieldErrors?: Record<string, string> }
    | undefined
  const table = useDataTable({
    text: 'candidates.text',
    count: 'candidates.count',
    seen: 'candidates.seen',
    actions: 'common.actions',
  })
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
      {result && !result.ok ? <FormError result={result} /> : null}
      {result && !result.ok && result.fieldErrors ? (
        <p className="error">{Object.values(result.fieldErrors).join(' ')}</p>
      ) : null}

      {items.length === 0 ? (
        <p className="muted">{t('candidates.none')}</p>
      ) : (
        <table {...table.props}>
          {table.head}
          <tbody {...table.body}>
            {items.map((c) => (
              <tr {...table.row} key={c.id} data-candidate={c.text}>
                <td {...table.cell('text')}>
                  <strong>{c.text}</strong>
                  <div className="muted small">
                    {formatDate(c.firstSeenAt)} – {formatDate(c.lastSeenAt)}
                  </div>
                </td>
                <td {...table.cell('count')}>{c.count}</td>
                <td {...table.cell('seen')}>
                  <ul className="sightings">
                    {c.sightings.map((s, i) => (
                      <li key={i} className="small">
                        <span className="badge">{t(`candidates.source.${s.source}` as MessageKey)}</span> …
                        {s.context}…
                      </li>
                    ))}
                  </ul>
                </td>
                <td {...table.cell('actions')}>
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
