import { data, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import {
  Form,
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useMatches,
  useRouteError,
  useRouteLoaderData,
} from '@remix-run/react'
import { FlashMessage } from './components/flash-message.tsx'
import { useNonce } from './components/nonce.tsx'
import { detectLang, fill, LANG_COOKIE, translate, type Lang, type MessageKey } from './lib/i18n.ts'
import { takeFlash } from '#app/lib/flash.server.ts'
import { readCookie } from '#app/lib/cookies.server.ts'
import { getSessionActor } from '#app/pages/session.server.ts'
import { getPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import stylesheet from './styles/app.css?url'
import adminStyles from './styles/admin.css?url'
import homeStyles from './styles/home.css?url'
import pickerStyles from './styles/picker.css?url'
import siteStyles from './styles/site.css?url'
import tableStyles from './styles/table.css?url'

export const links: LinksFunction = () => [
  // app.css holds the tokens and base elements; the others one part each (decision 025).
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'stylesheet', href: siteStyles },
  { rel: 'stylesheet', href: tableStyles },
  { rel: 'stylesheet', href: pickerStyles },
  { rel: 'stylesheet', href: homeStyles },
  { rel: 'stylesheet', href: adminStyles },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

export async function loader({ request, context }: LoaderFunctionArgs) {
  const actor = await getSessionActor(request)
  const user = actor
    ? { id: actor.user.id, name: actor.user.name, email: actor.user.email, role: actor.user.role }
    : null
  // visitors see "Create account" only while registration is open (password login on)
  const registerOpen = user ? false : await getPasswordLoginEnabled()
  const lang = detectLang(
    readCookie(request.headers.get('cookie'), LANG_COOKIE),
    request.headers.get('accept-language'),
  )
  // The last action's confirmation, shown once: its cookie is removed by this same answer.
  const { flash, clearLine } = takeFlash(request, context)
  return data(
    { lang, user, registerOpen, flash },
    clearLine ? { headers: { 'Set-Cookie': clearLine } } : undefined,
  )
}

/** The signed-in user of the page (null for visitors), for navigation and role-aware controls. */
export function useOptionalUser() {
  return useRouteLoaderData<typeof loader>('root')?.user ?? null
}

/** Labels in the language of the page, for any component below the root. */
export function useT(): (key: MessageKey) => string {
  const data = useRouteLoaderData<typeof loader>('root')
  const lang: Lang = data?.lang ?? 'en'
  return (key) => translate(lang, key)
}

export function Layout({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<typeof loader>('root')
  const nonce = useNonce()
  return (
    <html lang={data?.lang ?? 'en'}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  )
}

/** Navigation shows only what the signed-in role may use. */
function Header() {
  const t = useT()
  const { lang, user, registerOpen } = useLoaderData<typeof loader>()
  return (
    <header className="site-header">
      <Link to="/" className="brand">
        {t('app.title')}
      </Link>
      <nav aria-label="main">
        <Link to="/">{t('nav.home')}</Link>
        {user ? (
          <>
            <Link to="/terms">{t('nav.terms')}</Link>
            <Link to="/check">{t('nav.check')}</Link>
            <Link to="/relations">{t('nav.relations')}</Link>
            <Link to="/wiki">{t('nav.wiki')}</Link>
            <Link to="/meetings">{t('nav.meetings')}</Link>
            <Link to="/search">{t('nav.search')}</Link>
            {user.role === 'editor' || user.role === 'admin' ? (
              <>
                <Link to="/candidates">{t('nav.candidates')}</Link>
                <Link to="/import">{t('nav.import')}</Link>
              </>
            ) : null}
          </>
        ) : null}
        {user?.role === 'admin' ? (
          <>
            <Link to="/admin/users">{t('nav.users')}</Link>
            <Link to="/admin/audit">{t('nav.audit')}</Link>
            <Link to="/admin/sso">{t('nav.sso')}</Link>
            <Link to="/admin/settings">{t('nav.adminSettings')}</Link>
            <Link to="/admin/search-settings">{t('nav.searchSettings')}</Link>
            <Link to="/admin/search-index">{t('nav.searchIndex')}</Link>
          </>
        ) : null}
      </nav>
      {user ? (
        <>
          <Link to="/settings" title={user.email}>
            {user.name} ({t(`role.${user.role}` as MessageKey)})
          </Link>
          <Form method="post" action="/logout" className="inline">
            <button type="submit" className="link">
              {t('nav.logout')}
            </button>
          </Form>
        </>
      ) : (
        <>
          <Link to="/login">{t('nav.login')}</Link>
          {registerOpen ? <Link to="/register">{t('nav.register')}</Link> : null}
        </>
      )}
      <Form method="post" action="/lang" className="inline">
        <input type="hidden" name="lang" value={lang === 'ko' ? 'en' : 'ko'} />
        <button type="submit" className="link">
          {t('nav.language')}
        </button>
      </Form>
    </header>
  )
}

export default function App() {
  // A page made to live in other sites' frames (`/embed`) declares `handle.bare`: no header, no navigation.
  const bare = useMatches().some((m) => (m.handle as { bare?: boolean } | undefined)?.bare)
  const { flash } = useLoaderData<typeof loader>()
  const t = useT()
  return (
    <>
      {bare ? null : <Header />}
      <main className={bare ? 'bare' : undefined}>
        {flash && !bare ? (
          <FlashMessage flash={flash} text={fill(t(flash.message), flash.values ?? {})} />
        ) : null}
        <Outlet />
      </main>
    </>
  )
}

export function ErrorBoundary() {
  const error = useRouteError()
  const notFound = isRouteErrorResponse(error) && error.status === 404
  return (
    <main>
      <h1>{notFound ? '404' : 'Error'}</h1>
      <p>
        {notFound
          ? 'This page does not exist. / 이 페이지는 존재하지 않습니다.'
          : 'Something went wrong. / 문제가 발생했습니다.'}
      </p>
      <p>
        <Link to="/">Home</Link>
      </p>
    </main>
  )
}
