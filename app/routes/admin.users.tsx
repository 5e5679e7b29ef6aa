import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import { Field, fieldError, FormError, IntentButton, OneTimeToken } from '#app/components/forms.tsx'
import { useDataTable } from '#app/components/data-table.tsx'
import { Pager } from '#app/components/pager.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { pageAudit, requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { useT, useOptionalUser } from '#app/root.tsx'
import { ChangeRoleSchema, CreateAgentSchema, ListUsersQuerySchema } from '#app/schemas/identity.ts'
import { createAgent, revokeAgentKeys, rotateAgentKey } from '#app/services/users/agents.server.ts'
import { listUsers, updateUser, USERS_PAGE_SIZE } from '#app/services/users/users.server.ts'
import { ROLES } from '#domain/identity.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'users.title') }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  const url = new URL(request.url)
  const query = ListUsersQuerySchema.safeParse(Object.fromEntries(url.searchParams))
  return { ...(await listUsers(query.success ? query.data : { page: 1 })), pageSize: USERS_PAGE_SIZE }
}

/**
 * Every change answers with a redirect back to the same list (filters and page kept) and a flash naming who
 * and what, so it works without JavaScript and a reload does not post again. Creating an agent and giving it
 * a new key answer the page itself instead: their key is shown once, on that answer.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  const form = await request.formData()
  const intent = String(form.get('intent'))
  const userId = String(form.get('userId') ?? '')
  const common = pageAudit(actor, request, context)
  const url = new URL(request.url)
  const done = (message: MessageKey, name: string) =>
    redirectWithFlash(url.pathname + url.search, { kind: 'success', message, values: { name } }, context)
  switch (intent) {
    case 'role': {
      const parsed = parseForm(ChangeRoleSchema, { role: form.get('role') })
      if (!parsed.ok) return invalidForm({ ...parsed, intent, userId })
      return formAction(
        async () => {
          const user = await updateUser({ userId, role: parsed.data.role, ...common })
          return done(`flash.user.role.${user.role}` as const, user.name)
        },
        { intent, userId },
      )
    }
    case 'deactivate':
    case 'reactivate':
      return formAction(
        async () => {
          const user = await updateUser({ userId, active: intent === 'reactivate', ...common })
          return done(user.active ? 'flash.user.reactivated' : 'flash.user.deactivated', user.name)
        },
        { intent, userId },
      )
    case 'create-agent': {
      const parsed = parseForm(CreateAgentSchema, { name: form.get('name') })
      if (!parsed.ok) return invalidForm({ ...parsed, intent })
      return formAction(
        async () => {
          const created = await createAgent({ name: parsed.data.name, ...common })
          return { ok: true as const, intent, token: created.key.token, agentName: created.user.name }
        },
        { intent },
      )
    }
    case 'rotate':
      return formAction(
        async () => {
          const rotated = await rotateAgentKey({ userId, ...common })
          return {
            ok: true as const,
            intent,
            userId,
            token: rotated.key.token,
            agentName: rotated.agent.name,
          }
        },
        { intent, userId },
      )
    case 'revoke-keys':
      return formAction(
        async () => {
          const revoked = await revokeAgentKeys({ userId, ...common })
          return done(revoked.revoked ? 'flash.agent.keysRevoked' : 'flash.agent.noKeys', revoked.agent.name)
        },
        { intent, userId },
      )
    default:
      return invalidForm({ ok: false as const, formError: 'Unknown action.' })
  }
}

type ActionResult = {
  ok: boolean
  intent?: string
  userId?: string
  token?: string
  agentName?: string
  formError?: string
}

export default function AdminUsersPage() {
  const t = useT()
  const me = useOptionalUser()
  const { items, total, page, pageSize } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as ActionResult | undefined
  const [params] = useSearchParams()
  const busy = useNavigation().state !== 'idle'
  const table = useDataTable(
    {
      email: 'field.email',
      name: 'field.name',
      kind: 'users.kind',
      role: 'field.role',
      status: 'users.status',
      actions: 'common.actions',
    },
    { className: 'users-table', testId: 'users' },
  )
  return (
    <section>
      <h1>{t('users.title')}</h1>
      <Form method="get" className="filters">
        <label>
          {t('common.search')}
          <input name="q" defaultValue={params.get('q') ?? ''} />
        </label>
        <label>
          {t('field.role')}
          <select name="role" defaultValue={params.get('role') ?? ''}>
            <option value="">{t('common.all')}</option>
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {t(`role.${role}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t('common.filter')}</button>
      </Form>

      {result?.token && result.agentName ? (
        <OneTimeToken
          token={result.token}
          notice={`${fill(t(result.intent === 'rotate' ? 'users.keyRotated' : 'users.agentCreated'), {
            name: result.agentName,
          })} ${t('settings.tokenOnce')}`}
          copyLabel={t('common.copy')}
          copiedLabel={t('common.copied')}
        />
      ) : null}
      {result && result.intent !== 'create-agent' ? <FormError result={result} /> : null}

      <p className="muted">{t('users.deactivateIntro')}</p>
      <table {...table.props}>
        {table.head}
        <tbody {...table.body}>
          {items.map((user) => {
            const self = user.id === me?.id
            return (
              <tr
                {...table.row}
                key={user.id}
                data-user-email={user.email}
                className={user.active ? undefined : 'user-deactivated'}
              >
                <td {...table.cell('email')}>
                  {user.authType === 'agent' ? <span className="muted">—</span> : user.email}
                </td>
                <td {...table.cell('name')}>{user.name}</td>
                <td {...table.cell('kind')}>{t(`users.kind.${user.authType}`)}</td>
                <td {...table.cell('role')}>
                  <Form method="post" className="user-role-form">
                    <input type="hidden" name="intent" value="role" />
                    <input type="hidden" name="userId" value={user.id} />
                    <select
                      name="role"
                      defaultValue={user.role}
                      aria-label={fill(t('users.roleOf'), { name: user.name })}
                      disabled={self}
                    >
                      {ROLES.filter((role) => user.authType !== 'agent' || role !== 'admin').map((role) => (
                        <option key={role} value={role}>
                          {t(`role.${role}`)}
                        </option>
                      ))}
                    </select>{' '}
                    {self ? null : (
                      <button type="submit" className="secondary" disabled={busy}>
                        {t('users.change')}
                      </button>
                    )}
                  </Form>
                </td>
                <td {...table.cell('status')}>
                  {user.deactivatedAt ? (
                    <>
                      <strong className="user-status-deactivated">{t('users.deactivated')}</strong>{' '}
                      <span className="muted user-status-since">
                        {fill(t('users.since'), { date: user.deactivatedAt.slice(0, 10) })}
                      </span>
                    </>
                  ) : (
                    t('users.active')
                  )}
                </td>
                <td {...table.cell('actions')}>
                  <span className="user-actions">
                    {self ? (
                      <span className="muted">{t('users.you')}</span>
                    ) : user.active ? (
                      <IntentButton
                        intent="deactivate"
                        fields={{ userId: user.id }}
                        className="danger"
                        disabled={busy}
                      >
                        {t('users.deactivate')}
                      </IntentButton>
                    ) : (
                      <IntentButton
                        intent="reactivate"
                        fields={{ userId: user.id }}
                        className="secondary"
                        disabled={busy}
                      >
                        {t('users.reactivate')}
                      </IntentButton>
                    )}
                    {user.authType === 'agent' ? (
                      <>
                        <IntentButton
                          intent="rotate"
                          fields={{ userId: user.id }}
                          className="secondary"
                          disabled={busy}
                        >
                          {t('users.rotate')}
                        </IntentButton>
                        <IntentButton
                          intent="revoke-keys"
                          fields={{ userId: user.id }}
                          className="danger"
                          disabled={busy}
                        >
                          {t('users.revokeKeys')}
                        </IntentButton>
                      </>
                    ) : null}
                  </span>
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
      <Pager total={total} page={page} pageSize={pageSize} />

      <h2>{t('users.createAgent')}</h2>
      <p className="muted">{t('users.agentIntro')}</p>
      {/* a new key remounts the form, so the created agent's name does not stay in the field */}
      <Form method="post" className="stack" key={result?.token ?? 'create-agent'}>
        <input type="hidden" name="intent" value="create-agent" />
        {result?.intent === 'create-agent' ? <FormError result={result} /> : null}
        <Field
          label={t('users.agentName')}
          name="name"
          required
          error={fieldError(result?.intent === 'create-agent' ? result : undefined, 'name')}
        />
        <button type="submit" disabled={busy}>
          {t('users.createAgent')}
        </button>
      </Form>
    </section>
  )
}
