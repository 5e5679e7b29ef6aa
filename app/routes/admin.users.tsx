import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { Field, fieldError, FormError, IntentButton, OneTimeToken } from '#app/components/forms.tsx'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import { clientOfPage, requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { Pager } from '#app/components/pager.tsx'
import { useT, useOptionalUser } from '#app/root.tsx'
import { ChangeRoleSchema, CreateAgentSchema, ListUsersQuerySchema } from '#app/schemas/identity.ts'
import { createAgent, revokeAgentKeys, rotateAgentKey } from '#app/services/users/agents.server.ts'
import { changeUserRole, listUsers, USERS_PAGE_SIZE } from '#app/services/users/users.server.ts'
import { ROLES } from '#domain/identity.ts'

export const meta: MetaFunction = () => [{ title: 'Users · Glossary' }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  const url = new URL(request.url)
  const query = ListUsersQuerySchema.safeParse(Object.fromEntries(url.searchParams))
  return { ...(await listUsers(query.success ? query.data : { page: 1 })), pageSize: USERS_PAGE_SIZE }
}

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  const form = await request.formData()
  const intent = String(form.get('intent'))
  const userId = String(form.get('userId') ?? '')
  const common = {
    actor: { userId: actor.user.id, label: actor.user.email },
    client: clientOfPage(request, context),
  }
  switch (intent) {
    case 'role': {
      const parsed = parseForm(ChangeRoleSchema, { role: form.get('role') })
      if (!parsed.ok) return invalidForm({ ...parsed, intent, userId })
      return formAction(async () => {
        await changeUserRole({ userId, role: parsed.data.role, ...common })
        return { ok: true as const, intent, userId }
      })
    }
    case 'create-agent': {
      const parsed = parseForm(CreateAgentSchema, { name: form.get('name') })
      if (!parsed.ok) return invalidForm({ ...parsed, intent })
      return formAction(async () => {
        const created = await createAgent({ name: parsed.data.name, ...common })
        return { ok: true as const, intent, token: created.key.token, agentName: created.user.name }
      })
    }
    case 'rotate':
      return formAction(async () => {
        const rotated = await rotateAgentKey({ userId, ...common })
        return { ok: true as const, intent, userId, token: rotated.key.token }
      })
    case 'revoke-keys':
      return formAction(async () => {
        const revoked = await revokeAgentKeys({ userId, ...common })
        return { ok: true as const, intent, userId, revoked: revoked.revoked }
      })
    default:
      return invalidForm({ ok: false as const, formError: 'Unknown action.' })
  }
}

export default function AdminUsersPage() {
  const t = useT()
  const me = useOptionalUser()
  const { items, total, page, pageSize } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as
    { ok: boolean; intent?: string; userId?: string; token?: string; formError?: string } | undefined
  const [params] = useSearchParams()
  const busy = useNavigation().state !== 'idle'
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

      {result?.token ? (
        <OneTimeToken
          token={result.token}
          notice={t('settings.tokenOnce')}
          copyLabel={t('common.copy')}
          copiedLabel={t('common.copied')}
        />
      ) : null}
      {result && result.intent !== 'create-agent' ? <FormError result={result} /> : null}

      <table>
        <thead>
          <tr>
            <th>{t('field.email')}</th>
            <th>{t('field.name')}</th>
            <th>{t('field.kind')}</th>
            <th>{t('field.role')}</th>
            <th>{t('common.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((user) => (
            <tr key={user.id} data-user-email={user.email}>
              <td>{user.authType === 'agent' ? <span className="muted">—</span> : user.email}</td>
              <td>{user.name}</td>
              <td>{user.authType}</td>
              <td>
                <Form method="post" className="inline">
                  <input type="hidden" name="intent" value="role" />
                  <input type="hidden" name="userId" value={user.id} />
                  <select name="role" defaultValue={user.role} aria-label={`${t('field.role')} ${user.name}`}>
                    {ROLES.filter((role) => user.authType !== 'agent' || role !== 'admin').map((role) => (
                      <option key={role} value={role}>
                        {t(`role.${role}`)}
                      </option>
                    ))}
                  </select>{' '}
                  <button type="submit" className="secondary" disabled={busy || user.id === me?.id}>
                    {t('users.change')}
                  </button>
                </Form>
              </td>
              <td>
                {user.authType === 'agent' ? (
                  <>
                    <IntentButton
                      intent="rotate"
                      fields={{ userId: user.id }}
                      className="secondary"
                      disabled={busy}
                    >
                      {t('users.rotate')}
                    </IntentButton>{' '}
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
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager total={total} page={page} pageSize={pageSize} />

      <h2>{t('users.createAgent')}</h2>
      <p className="muted">{t('users.agentIntro')}</p>
      <Form method="post" className="stack">
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
