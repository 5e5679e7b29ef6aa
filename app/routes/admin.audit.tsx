import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData, useSearchParams } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import { useDataTable } from '#app/components/data-table.tsx'
import { Pager } from '#app/components/pager.tsx'
import { fill, isMessageKey, type MessageKey } from '#app/lib/i18n.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { ListAuditQuerySchema } from '#app/schemas/identity.ts'
import {
  AUDIT_ACTIONS,
  AUDIT_PAGE_SIZE,
  auditParties,
  listAudit,
  type AuditAction,
} from '#app/services/audit/audit.server.ts'
import type { AuditItemDto } from '#app/services/audit/store.server.ts'
import { ROLES, type Role } from '#domain/identity.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'audit.title') }]

/**
 * The label of every audit action. Typed so that an action added to `AUDIT_ACTIONS` without its
 * `audit.action.<action>` label (app/lib/messages/admin.ts, both languages) fails the type check.
 */
function auditActionKey(action: AuditAction) {
  return `audit.action.${action}` as const satisfies MessageKey
}

/** The label of a stored action, or undefined for one no longer written (older records keep their key). */
function storedActionKey(action: string): MessageKey | undefined {
  const key = `audit.action.${action}`
  return isMessageKey(key) ? key : undefined
}

/** `from`/`to` come from date inputs (YYYY-MM-DD); the API schema wants ISO timestamps. */
function toIso(value: string | null, endOfDay = false): string | undefined {
  if (!value) return undefined
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : value
}

/** Who acted, as the page names them: an account that still exists, a deleted one, or a label (CLI, a typed email). */
type Party =
  | { kind: 'user'; id: string; name: string; email: string }
  | { kind: 'deletedUser'; label: string | null }
  | { kind: 'label'; label: string }
  | { kind: 'commandLine'; label: string }
  | { kind: 'session' }
  | { kind: 'key'; name: string }
  | { kind: 'deletedKey' }
  | { kind: 'other'; type: string; id: string | null }
  | { kind: 'none' }

/** What the page shows of a record's details: a role change's roles, a switch's new state. */
type Detail = { kind: 'roles'; from: Role; to: Role } | { kind: 'switch'; on: boolean } | { kind: 'none' }

const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value)

function detailOf(item: AuditItemDto): Detail {
  const { details } = item
  if (item.action === 'user.role_change' && isRole(details.from) && isRole(details.to)) {
    return { kind: 'roles', from: details.from, to: details.to }
  }
  if (item.action === 'settings.password_login' && typeof details.enabled === 'boolean') {
    return { kind: 'switch', on: details.enabled }
  }
  return { kind: 'none' }
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
  // Names instead of ids: one query for the accounts, one for the keys, whatever the page holds.
  const actorId = 'actorId' in filters ? filters.actorId : undefined
  const { users, keys } = await auditParties(result.items, actorId ? [actorId] : [])
  const actorOf = (item: AuditItemDto): Party => {
    if (item.actorId) {
      const user = users[item.actorId]
      return user
        ? { kind: 'user', id: item.actorId, ...user }
        : { kind: 'deletedUser', label: item.actorLabel }
    }
    if (item.actorLabel?.startsWith('cli')) return { kind: 'commandLine', label: item.actorLabel }
    return item.actorLabel ? { kind: 'label', label: item.actorLabel } : { kind: 'none' }
  }
  const targetOf = (item: AuditItemDto): Party => {
    if (!item.targetType) return { kind: 'none' }
    if (item.targetType === 'user' && item.targetId) {
      const user = users[item.targetId]
      return user ? { kind: 'user', id: item.targetId, ...user } : { kind: 'deletedUser', label: null }
    }
    if (item.targetType === 'api_key' && item.targetId) {
      const key = keys[item.targetId]
      return key ? { kind: 'key', name: key.name } : { kind: 'deletedKey' }
    }
    if (item.targetType === 'session') return { kind: 'session' }
    return { kind: 'other', type: item.targetType, id: item.targetId }
  }
  return {
    items: result.items.map((item) => ({
      id: item.id,
      at: item.at,
      action: item.action,
      actor: actorOf(item),
      target: targetOf(item),
      detail: detailOf(item),
      ip: item.ip,
      userAgent: item.userAgent,
    })),
    total: result.total,
    page: result.page,
    actions: AUDIT_ACTIONS.map((action) => ({ action, label: auditActionKey(action) })),
    invalid: !query.success,
    pageSize: AUDIT_PAGE_SIZE,
    // The actor filter, named: set from a name's link in the list.
    actorFilter: actorId ? (users[actorId]?.name ?? null) : undefined,
  }
}

function PartyName({ party, filterLink }: { party: Party; filterLink?: boolean }) {
  const t = useT()
  switch (party.kind) {
    case 'user':
      return filterLink ? (
        <Link to={`?actorId=${party.id}`} title={party.email}>
          {party.name}
        </Link>
      ) : (
        <span title={party.email}>{party.name}</span>
      )
    case 'deletedUser':
      return (
        <span className="muted" title={party.label ?? undefined}>
          {t('audit.deletedUser')}
        </span>
      )
    case 'commandLine':
      return <span title={party.label}>{t('audit.commandLine')}</span>
    case 'label':
      return <span>{party.label}</span>
    case 'session':
      return <span>{t('audit.session')}</span>
    case 'key':
      return <span>{fill(t('audit.key'), { name: party.name })}</span>
    case 'deletedKey':
      return <span className="muted">{t('audit.deletedKey')}</span>
    case 'other':
      return (
        <span>
          {party.type} <code>{party.id}</code>
        </span>
      )
    case 'none':
      return null
  }
}

function DetailText({ detail }: { detail: Detail }) {
  const t = useT()
  if (detail.kind === 'roles') return <>{` (${t(`role.${detail.from}`)} → ${t(`role.${detail.to}`)})`}</>
  if (detail.kind === 'switch') return <>{` (${t(detail.on ? 'audit.detail.on' : 'audit.detail.off')})`}</>
  return null
}

/** The same filters without the actor's. */
function everyone(params: URLSearchParams): string {
  const next = new URLSearchParams(params)
  next.delete('actorId')
  next.delete('page')
  const query = next.toString()
  return query ? `/admin/audit?${query}` : '/admin/audit'
}

export default function AuditPage() {
  const t = useT()
  const { items, total, page, actions, invalid, pageSize, actorFilter } = useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  const table = useDataTable(
    { at: 'audit.at', who: 'audit.who', what: 'audit.what', target: 'audit.target', client: 'audit.client' },
    { className: 'audit-table', testId: 'audit' },
  )
  return (
    <section>
      <h1>{t('audit.title')}</h1>
      <Form method="get" className="filters">
        <label>
          {t('audit.action')}
          <select name="action" defaultValue={params.get('action') ?? ''}>
            <option value="">{t('common.all')}</option>
            {actions.map(({ action, label }) => (
              <option key={action} value={action}>
                {t(label)}
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
        {params.get('actorId') ? <input type="hidden" name="actorId" value={params.get('actorId')!} /> : null}
        <button type="submit">{t('common.filter')}</button>
      </Form>
      {invalid ? <p className="error">{t('audit.invalidFilter')}</p> : null}
      {actorFilter !== undefined ? (
        <p className="notice audit-actor-filter">
          {fill(t('audit.onlyActor'), { name: actorFilter ?? t('audit.deletedUser') })}{' '}
          <Link to={everyone(params)}>{t('audit.everyone')}</Link>
        </p>
      ) : null}
      <table {...table.props}>
        {table.head}
        <tbody {...table.body}>
          {items.map((item) => {
            const label = storedActionKey(item.action)
            return (
              <tr {...table.row} key={item.id} data-action={item.action}>
                <td {...table.cell('at')}>
                  <time dateTime={item.at}>
                    {item.at.replace('T', ' ').slice(0, 19)} {t('audit.utc')}
                  </time>
                </td>
                <td {...table.cell('who')}>
                  <PartyName party={item.actor} filterLink />
                </td>
                <td {...table.cell('what')}>
                  {label ? t(label) : <code>{item.action}</code>}
                  <DetailText detail={item.detail} />
                </td>
                <td {...table.cell('target')}>
                  <PartyName party={item.target} />
                </td>
                <td {...table.cell('client')} className="muted audit-client">
                  {item.ip} {item.userAgent ? `· ${item.userAgent.slice(0, 60)}` : ''}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
      <Pager total={total} page={page} pageSize={pageSize} />
    </section>
  )
}
