import { Link } from '@remix-run/react'
import { fill, translate, type Lang, type MessageKey } from '#app/lib/i18n.ts'
import { ROLES, type Role } from '#domain/identity.ts'

/**
 * What an error page says, in the reader's language (the root's ErrorBoundary puts it inside the site's header
 * and navigation). A 403 of `requireUser` names the role the page needs; a 404 says the page or item does not
 * exist; another refused request (4xx) shows its message; anything else is a plain apology without details.
 */

export interface PageError {
  status: number
  /** The thrown answer's data: `{ message }` from `orErrorPage`, `{ message, neededRole, role }` from `requireUser`. */
  data?: unknown
}

const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value)

function messageOf(data: unknown): string | null {
  if (typeof data === 'string') return data.trim() || null
  if (
    typeof data === 'object' &&
    data !== null &&
    typeof (data as { message?: unknown }).message === 'string'
  )
    return (data as { message: string }).message
  return null
}

export function ErrorPage({ error, lang, signedIn }: { error: PageError; lang: Lang; signedIn: boolean }) {
  const t = (key: MessageKey) => translate(lang, key)
  const { status, data } = error
  const links = (
    <ul className="error-links">
      <li>
        <Link to="/">{t('error.home')}</Link>
      </li>
      {signedIn ? (
        <li>
          <Link to="/terms">{t('error.terms')}</Link>
        </li>
      ) : null}
    </ul>
  )

  if (status === 403) {
    const { neededRole, role } = (typeof data === 'object' && data !== null ? data : {}) as {
      neededRole?: unknown
      role?: unknown
    }
    return (
      <section className="error-page" data-status={status}>
        <h1>{t('error.forbidden.title')}</h1>
        {isRole(neededRole) && isRole(role) ? (
          <>
            <p>
              {fill(t('error.forbidden.role'), {
                needed: t(`role.${neededRole}`),
                role: t(`role.${role}`),
              })}
            </p>
            <p className="muted">{t('error.forbidden.ask')}</p>
          </>
        ) : (
          <p>{messageOf(data)}</p>
        )}
        {links}
      </section>
    )
  }
  if (status === 404) {
    return (
      <section className="error-page" data-status={status}>
        <h1>{t('error.notFound.title')}</h1>
        <p>{t('error.notFound.text')}</p>
        {links}
      </section>
    )
  }
  const message = status >= 400 && status < 500 ? messageOf(data) : null
  return (
    <section className="error-page" data-status={status}>
      <h1>{message ? t('error.request.title') : t('error.title')}</h1>
      <p>{message ?? t('error.server.text')}</p>
      {links}
    </section>
  )
}
