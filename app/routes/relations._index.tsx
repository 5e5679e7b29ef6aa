import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import { RelationItem } from '#app/components/content/relation-item.tsx'
import { RelationTypeSelect } from '#app/components/content/relation-fields.tsx'
import type { MessageKey } from '#app/lib/i18n.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { handleRelationReview } from '#app/pages/relation-review.server.ts'
import { Pager } from '#app/components/pager.tsx'
import { useOptionalUser, useT } from '#app/root.tsx'
import { ListRelationsQuerySchema, RELATION_LIMITS } from '#app/schemas/relations.ts'
import { listRelations } from '#app/services/relations/read.server.ts'
import { RELATION_STATUSES } from '#domain/content.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'relations.title') }]

/** The review queue: proposed relations by default; any status, type or only stale ones on request. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const params = Object.fromEntries(new URL(request.url).searchParams)
  const status = params.status === 'all' ? undefined : (params.status ?? 'proposed')
  const parsed = ListRelationsQuerySchema.safeParse({ ...params, status, stale: params.stale || undefined })
  const query = parsed.success ? parsed.data : ListRelationsQuerySchema.parse({ status: 'proposed' })
  return { ...(await listRelations(query)), pageSize: RELATION_LIMITS.pageSize }
}

/** Approve, reject or reverse: back to this list (filters kept) with a flash that names the relation. */
export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'editor')
  return handleRelationReview(actor, await request.formData(), { request, context })
}

export default function RelationsPage() {
  const t = useT()
  const user = useOptionalUser()
  const { items, total, page, pageSize } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>()
  const busy = useNavigation().state !== 'idle'
  const [params] = useSearchParams()
  const canReview = user?.role === 'editor' || user?.role === 'admin'
  return (
    <section>
      <h1>{t('relations.title')}</h1>
      <p className="muted">
        {t('relations.official')} <Link to="/relations/new">{t('relations.propose')}</Link>
      </p>
      <Form method="get" className="filters">
        <label>
          {t('relations.status')}
          <select name="status" defaultValue={params.get('status') ?? 'proposed'}>
            {RELATION_STATUSES.map((status) => (
              <option key={status} value={status}>
                {t(`status.${status}` as MessageKey)}
              </option>
            ))}
            <option value="all">{t('common.all')}</option>
          </select>
        </label>
        <RelationTypeSelect name="type" defaultValue={params.get('type') ?? ''} withAll />
        <label className="inline-check">
          <input type="checkbox" name="stale" value="true" defaultChecked={params.get('stale') === 'true'} />{' '}
          {t('relations.staleOnly')}
        </label>
        <button type="submit">{t('common.filter')}</button>
      </Form>
      {items.length === 0 ? <p className="muted">{t('relations.none')}</p> : null}
      {items.map((relation) => (
        <div key={relation.id}>
          {result && result.ok === false && result.id === relation.id ? (
            <p role="alert" className="error">
              {result.code === 'revision_conflict'
                ? t('relations.conflictRevision')
                : result.code === 'operation_conflict'
                  ? t('relations.conflictVersion')
                  : result.message}
            </p>
          ) : null}
          <RelationItem relation={relation} canReview={canReview} busy={busy} />
        </div>
      ))}
      {result && result.ok === false && !items.some((r) => r.id === result.id) ? (
        <p role="alert" className="error">
          {result.code === 'operation_conflict' ? t('relations.conflictVersion') : result.message}
        </p>
      ) : null}
      <Pager total={total} page={page} pageSize={pageSize} />
    </section>
  )
}
