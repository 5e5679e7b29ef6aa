import { Form, Link, useLocation } from '@remix-run/react'
import { useEffect, useRef } from 'react'
import { translate, type Lang, type MessageKey } from '#app/lib/i18n.ts'
import { hasRole, type Role } from '#domain/identity.ts'

/**
 * The site header: the brand, the navigation in three groups, the account and the language switch
 * (docs/decisions/025-design-system.md). Each entry is named by its page's own title key, so an entry and the
 * <h1> it opens always read the same. It reads nothing from the root module (which renders it): the root passes
 * what it needs.
 *
 * At desktop width the Glossary group (the daily work: terms, checking a text, search, chat, relations) is links
 * in the row, right after the brand that names it, and Content and Admin are menus behind their labels, so the
 * header is one row at 1280 px; up to 72rem (a phone, a tablet) the whole navigation sits behind one "Menu"
 * control. Both menus are <details> elements, so they
 * open and close without JavaScript; with JavaScript they also close on a click elsewhere, on Escape and after
 * a navigation.
 */

interface NavEntry {
  to: string
  /** The title key of the page the entry opens. */
  label: MessageKey
  minRole: Role
}

interface NavGroup {
  id: 'glossary' | 'content' | 'admin'
  label: MessageKey
  /** At desktop width the group is a menu behind its label rather than links in the row. */
  menu: boolean
  entries: readonly NavEntry[]
}

export const NAV_GROUPS: readonly NavGroup[] = [
  {
    id: 'glossary',
    label: 'nav.group.glossary',
    menu: false,
    entries: [
      { to: '/terms', label: 'terms.title', minRole: 'viewer' },
      { to: '/check', label: 'check.title', minRole: 'viewer' },
      { to: '/search', label: 'search.title', minRole: 'viewer' },
      { to: '/chat', label: 'chat.title', minRole: 'viewer' },
      { to: '/relations', label: 'relations.title', minRole: 'viewer' },
    ],
  },
  {
    id: 'content',
    label: 'nav.group.content',
    menu: true,
    entries: [
      { to: '/wiki', label: 'wiki.title', minRole: 'viewer' },
      { to: '/meetings', label: 'meetings.title', minRole: 'viewer' },
      { to: '/candidates', label: 'candidates.title', minRole: 'editor' },
      { to: '/import', label: 'import.title', minRole: 'editor' },
    ],
  },
  {
    id: 'admin',
    label: 'nav.group.admin',
    menu: true,
    entries: [
      { to: '/admin/users', label: 'users.title', minRole: 'admin' },
      { to: '/admin/audit', label: 'audit.title', minRole: 'admin' },
      { to: '/admin/classification', label: 'classification.title', minRole: 'admin' },
      { to: '/admin/sso', label: 'sso.title', minRole: 'admin' },
      { to: '/admin/settings', label: 'settings.admin.title', minRole: 'admin' },
      { to: '/admin/search-settings', label: 'searchSettings.title', minRole: 'admin' },
      { to: '/admin/search-index', label: 'searchIndex.title', minRole: 'admin' },
      { to: '/admin/ai-observability', label: 'aiObs.title', minRole: 'admin' },
      { to: '/admin/ai-provider', label: 'aiProvider.title', minRole: 'admin' },
      { to: '/admin/sync', label: 'sync.title', minRole: 'admin' },
    ],
  },
]

/** The groups and entries a role may use; a group with none is left out. */
export function navGroupsFor(role: Role): NavGroup[] {
  return NAV_GROUPS.map((group) => ({
    ...group,
    entries: group.entries.filter((entry) => hasRole({ role }, entry.minRole)),
  })).filter((group) => group.entries.length > 0)
}

/** Whether `pathname` is the entry's page or one below it (`/terms/x` is under Terms). */
export function isUnder(pathname: string, to: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname
  return path === to || path.startsWith(`${to}/`)
}

export interface SiteHeaderProps {
  lang: Lang
  user: { name: string; email: string; role: Role } | null
  registerOpen: boolean
}

export function SiteHeader({ lang, user, registerOpen }: SiteHeaderProps) {
  const t = (key: MessageKey) => translate(lang, key)
  const { pathname, key: locationKey } = useLocation()
  const headerRef = useRef<HTMLElement>(null)

  // A menu left open would stay open across a client-side navigation: close every one when the page changes.
  useEffect(() => {
    for (const details of openMenus(headerRef.current)) details.open = false
  }, [locationKey])

  // A click outside an open menu or Escape inside it closes it (Escape gives the focus back to its summary).
  useEffect(() => {
    const onClick = (event: MouseEvent) => {
      for (const details of openMenus(headerRef.current)) {
        if (!details.contains(event.target as Node)) details.open = false
      }
    }
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      for (const details of openMenus(headerRef.current)) {
        if (!details.contains(document.activeElement)) continue
        details.open = false
        details.querySelector('summary')?.focus()
      }
    }
    document.addEventListener('click', onClick)
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('click', onClick)
      document.removeEventListener('keydown', onKey)
    }
  }, [])

  const groups = user ? navGroupsFor(user.role) : []
  const current = (to: string) => (isUnder(pathname, to) ? ('page' as const) : undefined)

  const links = (entries: readonly NavEntry[]) => (
    <ul>
      {entries.map((entry) => (
        <li key={entry.to}>
          <Link to={entry.to} aria-current={current(entry.to)}>
            {t(entry.label)}
          </Link>
        </li>
      ))}
    </ul>
  )

  const account = user ? (
    <>
      <Link to="/settings" title={user.email} aria-current={current('/settings')}>
        {`${user.name} (${t(`role.${user.role}`)})`}
      </Link>
      <Form method="post" action="/logout" className="inline">
        <button type="submit" className="link">
          {t('nav.logout')}
        </button>
      </Form>
    </>
  ) : null

  return (
    <header className="site-header" ref={headerRef}>
      <Link to="/" className="brand" aria-current={pathname === '/' ? 'page' : undefined}>
        {t('app.title')}
      </Link>
      {user ? (
        <>
          <nav className="site-nav" aria-label={t('nav.main')}>
            {groups.map((group) =>
              group.menu ? (
                <details key={group.id} className="nav-group nav-dropdown">
                  <summary
                    className={group.entries.some((entry) => current(entry.to)) ? 'current' : undefined}
                  >
                    {t(group.label)}
                  </summary>
                  <div className="nav-dropdown-panel" role="group" aria-label={t(group.label)}>
                    {links(group.entries)}
                  </div>
                </details>
              ) : (
                <div key={group.id} className="nav-group" role="group" aria-label={t(group.label)}>
                  {links(group.entries)}
                </div>
              ),
            )}
          </nav>
          <div className="site-account site-account-user">{account}</div>
        </>
      ) : (
        <div className="site-account">
          <Link to="/login" aria-current={current('/login')}>
            {t('nav.login')}
          </Link>
          {registerOpen ? (
            <Link to="/register" aria-current={current('/register')}>
              {t('nav.register')}
            </Link>
          ) : null}
        </div>
      )}
      <Form method="post" action="/lang" className="site-lang">
        <input type="hidden" name="lang" value={lang === 'ko' ? 'en' : 'ko'} />
        <button type="submit" className="link" lang={lang === 'ko' ? 'en' : 'ko'}>
          {t('nav.language')}
        </button>
      </Form>
      {user ? (
        <details className="site-menu">
          <summary>{t('nav.menu')}</summary>
          <div className="site-menu-panel">
            <nav aria-label={t('nav.main')}>
              {groups.map((group) => (
                <div key={group.id} className="site-menu-group" role="group" aria-label={t(group.label)}>
                  <p className="site-menu-label" aria-hidden="true">
                    {t(group.label)}
                  </p>
                  {links(group.entries)}
                </div>
              ))}
            </nav>
            <div className="site-menu-account" role="group" aria-label={t('nav.account')}>
              {account}
            </div>
          </div>
        </details>
      ) : null}
    </header>
  )
}

function openMenus(header: HTMLElement | null): HTMLDetailsElement[] {
  return header ? [...header.querySelectorAll<HTMLDetailsElement>('details[open]')] : []
}
