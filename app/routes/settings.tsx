import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { Field, fieldError, FormError, IntentButton, OneTimeToken } from '#app/components/forms.tsx'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { pageTitle } from '#app/lib/page-title.ts'
import { formAction, invalidForm, parseForm } from '#app/pages/forms.server.ts'
import {
  clientOfPage,
  isHttpsPage,
  requireUser,
  requireUserAction,
  type SessionActor,
} from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import { CreateKeySchema, DeleteAccountSchema, UpdateAccountSchema } from '#app/schemas/identity.ts'
import {
  createPersonalKey,
  listUserKeys,
  revokeUserKey,
  scopesForRole,
} from '#app/services/auth/api-keys.server.ts'
import { clearedSessionCookie } from '#app/services/auth/sessions.server.ts'
import { deleteOwnAccount } from '#app/services/users/delete-account.server.ts'
import { updateAccountName } from '#app/services/users/users.server.ts'
import { SCOPES } from '#domain/identity.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'settings.title') }]

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireUser(request)
  const { keys } = await listUserKeys(actor.user.id)
  return {
    user: actor.user,
    keys,
    allowedScopes: actor.user.authType === 'agent' ? [] : scopesForRole(actor.user.role),
  }
}

const auditActor = (actor: SessionActor) => ({ userId: actor.user.id, label: actor.user.email })

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request)
  const form = await request.formData()
  const intent = form.get('intent')
  const client = clientOfPage(request, context)
  switch (intent) {
    case 'rename': {
      const parsed = parseForm(UpdateAccountSchema, { name: form.get('name') })
      if (!parsed.ok) return invalidForm({ ...parsed, intent })
      return formAction(async () => {
        await updateAccountName({ userId: actor.user.id, name: parsed.data.name, client })
        return redirectWithFlash('/settings', { kind: 'success', message: 'flash.nameSaved' }, context)
      })
    }
    case 'create-key': {
      const parsed = parseForm(CreateKeySchema, { name: form.get('name'), scopes: form.getAll('scopes') })
      if (!parsed.ok) return invalidForm({ ...parsed, intent })
      return formAction(async () => {
        const { token } = await createPersonalKey({
          user: actor.user,
          ...parsed.data,
          actor: auditActor(actor),
          client,
        })
        return { ok: true as const, intent, token }
      })
    }
    case 'revoke-key':
      return formAction(async () => {
        const keyId = String(form.get('keyId'))
        await revokeUserKey({ userId: actor.user.id, keyId, actor: auditActor(actor), client })
        // the confirmation names the key as its owner named it (the service checked it is theirs)
        const { keys } = await listUserKeys(actor.user.id)
        const name = keys.find((key) => key.id === keyId)?.name ?? ''
        return redirectWithFlash(
          '/settings',
          { kind: 'success', message: 'flash.keyRevoked', values: { name } },
          context,
        )
      })
    case 'delete-account': {
      const parsed = parseForm(DeleteAccountSchema, {
        confirmEmail: form.get('confirmEmail') ?? '',
        password: form.get('password') || undefined,
      })
      if (!parsed.ok) return invalidForm({ ...parsed, intent })
      return formAction(async () => {
        await deleteOwnAccount({ userId: actor.user.id, ...parsed.data, client })
        return redirectWithFlash('/login', { kind: 'success', message: 'flash.accountDeleted' }, context, {
          headers: { 'Set-Cookie': clearedSessionCookie({ secure: isHttpsPage(context) }) },
        })
      })
    }
    default:
      return invalidForm({ ok: false as const, formError: 'Unknown action.' })
  }
}

function formatDate(iso: string | null, never: string): string {
  return iso ? new Date(iso).toISOString().slice(0, 16).replace('T', ' ') : never
}

export default function SettingsPage() {
  const t = useT()
  const { user, keys, allowedScopes } = useLoaderData<typeof loader>()
  const result = useActionData<typeof action>() as
    { ok: boolean; intent?: string; token?: string } | undefined
  const navigation = useNavigation()
  const busy = navigation.state !== 'idle'
  const resultFor = (intent: string) => (result?.intent === intent ? result : undefined)
  return (
    <section>
      <h1>{t('settings.title')}</h1>

      <h2>{t('settings.profile')}</h2>
      <Form method="post" className="stack">
        <input type="hidden" name="intent" value="rename" />
        <FormError result={resultFor('rename')} />
        <p className="muted">
          {t('field.email')}: {user.email} · {t('field.role')}: {t(`role.${user.role}`)}
        </p>
        <Field
          label={t('field.name')}
          name="name"
          defaultValue={user.name}
          required
          error={fieldError(resultFor('rename'), 'name')}
        />
        <button type="submit" disabled={busy}>
          {t('common.save')}
        </button>
      </Form>

      <h2>{t('settings.keys')}</h2>
      <p className="muted">{t('settings.keysIntro')}</p>
      {resultFor('create-key')?.token ? (
        <OneTimeToken
          token={resultFor('create-key')!.token!}
          notice={t('settings.tokenOnce')}
          copyLabel={t('common.copy')}
          copiedLabel={t('common.copied')}
        />
      ) : null}
      {allowedScopes.length ? (
        <Form method="post" className="stack">
          <input type="hidden" name="intent" value="create-key" />
          <FormError result={resultFor('create-key')} />
          <Field
            label={t('settings.keyName')}
            id="field-key-name"
            name="name"
            required
            error={fieldError(resultFor('create-key'), 'name')}
          />
          <fieldset>
            <legend>{t('field.scopes')}</legend>
            {SCOPES.map((scope) => (
              <label key={scope} className="inline-check">
                <input
                  type="checkbox"
                  name="scopes"
                  value={scope}
                  disabled={!allowedScopes.includes(scope)}
                  defaultChecked={scope === 'read'}
                />{' '}
                {scope}
              </label>
            ))}
            {fieldError(resultFor('create-key'), 'scopes') ? (
              <span className="error">{fieldError(resultFor('create-key'), 'scopes')}</span>
            ) : null}
          </fieldset>
          <button type="submit" disabled={busy}>
            {t('settings.createKey')}
          </button>
        </Form>
      ) : null}
      {keys.length ? (
        <table>
          <thead>
            <tr>
              <th>{t('settings.keyName')}</th>
              <th>{t('settings.keyPrefix')}</th>
              <th>{t('field.scopes')}</th>
              <th>{t('field.created')}</th>
              <th>{t('field.lastUsed')}</th>
              <th>{t('common.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} data-key-prefix={key.prefix}>
                <td>{key.name}</td>
                <td>
                  <code>glk_{key.prefix}_…</code>
                </td>
                <td>{key.scopes.join(', ')}</td>
                <td>{formatDate(key.createdAt, t('common.never'))}</td>
                <td>{formatDate(key.lastUsedAt, t('common.never'))}</td>
                <td>
                  {key.revokedAt ? (
                    <span className="muted">
                      {t('field.revoked')} {formatDate(key.revokedAt, '')}
                    </span>
                  ) : (
                    <IntentButton
                      intent="revoke-key"
                      fields={{ keyId: key.id }}
                      className="secondary"
                      disabled={busy}
                    >
                      {t('settings.revoke')} {key.name}
                    </IntentButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">{t('settings.noKeys')}</p>
      )}

      <h2>{t('settings.delete')}</h2>
      <p className="muted">{t('settings.deleteIntro')}</p>
      <Form method="post" className="stack">
        <input type="hidden" name="intent" value="delete-account" />
        <FormError result={resultFor('delete-account')} />
        <Field
          label={t('settings.confirmEmail')}
          name="confirmEmail"
          type="email"
          required
          autoComplete="off"
          error={fieldError(resultFor('delete-account'), 'confirmEmail')}
        />
        {user.authType === 'password' ? (
          <Field
            label={t('field.password')}
            name="password"
            type="password"
            required
            autoComplete="current-password"
            error={fieldError(resultFor('delete-account'), 'password')}
          />
        ) : null}
        <button type="submit" className="danger" disabled={busy}>
          {t('settings.deleteSubmit')}
        </button>
      </Form>
    </section>
  )
}
