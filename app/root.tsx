import { data, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import {
  isRouteErrorResponse,
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
import { ErrorPage } from './components/error-page.tsx'
import { FlashMessage } from './components/flash-message.tsx'
import { useNonce } from './components/nonce.tsx'
import { SiteHeader } from './components/site-header.tsx'
import { detectLang, fill, LANG_COOKIE, translate, type Lang, type MessageKey } from './lib/i18n.ts'
import { takeFlash } from '#app/lib/flash.server.ts'
import { readCookie } from '#app/lib/cookies.server.ts'
import { getSessionActor } from '#app/pages/session.server.ts'
import { getPasswordLoginEnabled } from '#app/services/settings/settings.server.ts'
import stylesheet from './styles/app.css?url'
import adminStyles from './styles/admin.css?url'
import chatStyles from './styles/chat.css?url'
import homeStyles from './styles/home.css?url'
import pickerStyles from './styles/picker.css?url'
import siteStyles from './styles/site.css?url'
import syncStyles from './styles/sync.css?url'
import tableStyles from './styles/table.css?url'

export const links: LinksFunction = () => [
  // app.css holds the tokens and base elements; the others one part each (decision 025).
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'stylesheet', href: siteStyles },
  { rel: 'stylesheet', href: tableStyles },
  { rel: 'stylesheet', href: pickerStyles },
  { rel: 'stylesheet', href: homeStyles },
  { rel: 'stylesheet', href: adminStyles },
  { rel: 'stylesheet', href: chatStyles },
  { rel: 'stylesheet', href: syncStyles },
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

/**
 * The root's title: the one a page without its own `meta` gets, and the one of an error page (an error shown by
 * the root's boundary renders no child route, so no child's `meta` runs).
 */
export const meta: MetaFunction<typeof loader> = ({ data, error }) => {
  const lang: Lang = data?.lang ?? 'en'
  const status = isRouteErrorResponse(error) ? error.status : error ? 500 : null
  const heading: MessageKey | null =
    status === 404
      ? 'error.notFound.title'
      : status === 403
        ? 'error.forbidden.title'
        : status === null
          ? null
          : status < 500
            ? 'error.request.title'
            : 'error.title'
  const app = translate(lang, 'app.title')
  return [{ title: heading ? `${translate(lang, heading)} · ${app}` : app }]
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

/** A page made to live in other sites' frames (`/embed`) declares `handle.bare`: no header, no navigation. */
function useBare(): boolean {
  return useMatches().some((m) => (m.handle as { bare?: boolean } | undefined)?.bare)
}

export default function App() {
  const bare = useBare()
  const { lang, user, registerOpen, flash } = useLoaderData<typeof loader>()
  const t = useT()
  return (
    <>
      {bare ? null : <SiteHeader lang={lang} user={user} registerOpen={registerOpen} />}
      <main className={bare ? 'bare' : undefined}>
        {flash && !bare ? (
          <FlashMessage flash={flash} text={fill(t(flash.message), flash.values ?? {})} />
        ) : null}
        <Outlet />
      </main>
    </>
  )
}

/**
 * Every error (a 403 of the role check, a 404 of a missing item or of an unknown address, a refused request, a
 * failure) is shown inside the site: header and navigation when the root loader answered, then what happened in
 * the reader's language. The answer's status code is the thrown one.
 */
export function ErrorBoundary() {
  const error = useRouteError()
  const data = useRouteLoaderData<typeof loader>('root')
  const bare = useBare()
  const lang = data?.lang ?? 'en'
  const pageError = isRouteErrorResponse(error) ? { status: error.status, data: error.data } : { status: 500 }
  return (
    <>
      {bare ? null : (
        <SiteHeader lang={lang} user={data?.user ?? null} registerOpen={data?.registerOpen ?? false} />
      )}
      <main className={bare ? 'bare' : undefined}>
        <ErrorPage error={pageError} lang={lang} signedIn={Boolean(data?.user)} />
      </main>
    </>
  )
}
