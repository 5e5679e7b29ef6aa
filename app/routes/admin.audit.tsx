import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData, useSearchParams } from '@remix-run/react'
import { requireUser } from '#app/pages/session.server.ts'
import { Pager } from '#app/components/pager.tsx'
import { useT } from '#app/root.tsx'
import { ListAuditQuerySchema } from '#app/schemas/identity.ts'
import { AUDIT_ACTIONS, AUDIT_PAGE_SIZE, listAudit } from '#app/services/audit/audit.server.ts'

export const meta: MetaFunction = () => [{ title: 'Audit log · Glossary' }]

/** `from`/`to` come from date inputs (YYYY-MM-DD); the API schema wants ISO timestamps. */
function toIso(value: string | null, endOfDay = false): string | undefined {
  if (!value) return undefined
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : value
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  const params = new URL(request.url).searchParams
  const query = ListAuditQuerySchema.safeParse({
    action: params.get('action') || undefined,
    actorId: params.get('actorId') || undefined,
    from: toIso(params.get('from')),
    to: toIso(params.get('to'), true),
    page: params.get('page') ?? undefined,
  })
  const filters = query.success ? query.data : { page: 1 }
  const result = await listAudit({
    ...filters,
    from: filters.from ? new Date(filters.from) : undefined,
    to: filters.to ? new Date(filters.to) : undefined,
  })
  return { ...result, actions: AUDIT_ACTIONS, invalid: !query.success, pageSize: AUDIT_PAGE_SIZE }
}

export default function AuditPage() {
  const t = useT()
  const { items, total, page, actions, invalid, pageSize } = useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  return (
    <section>
      <h1>{t('audit.title')}</h1>
      <Form method="get" className="filters">
        <label>
          {t('audit.action')}
          <select name="action" defaultValue={params.get('action') ?? ''}>
            <option value="">{t('common.all')}</option>
            {actions.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('audit.from')}
          <input type="date" name="from" defaultValue={params.get('from') ?? ''} />
        </label>
        <label>
          {t('audit.to')}
          <input type="date" name="to" defaultValue={params.get('to') ?? ''} />
        </label>
        <button type="submit">{t('common.filter')}</button>
      </Form>
      {invalid ? <p className="error">The filter is not valid; showing everything.</p> : null}
      <table>
        <thead>
          <tr>
            <th>{t('audit.at')}</th>
            <th>{t('audit.action')}</th>
            <th>{t('audit.actor')}</th>
            <th>{t('audit.target')}</th>
            <th>{t('audit.client')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id}>
              <td>{item.at.replace('T', ' ').slice(0, 19)}</td>
              <td>
                <code>{item.action}</code>
              </td>
              <td>
                {item.actorId ? (
                  <Link to={`?actorId=${item.actorId}`}>{item.actorLabel}</Link>
                ) : (
                  item.actorLabel
                )}
              </td>
              <td>{item.targetType ? `${item.targetType} ${item.targetId ?? ''}` : ''}</td>
              <td className="muted">
                {item.ip} {item.userAgent ? `· ${item.userAgent.slice(0, 60)}` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager total={total} page={page} pageSize={pageSize} />
    </section>
  )
}
