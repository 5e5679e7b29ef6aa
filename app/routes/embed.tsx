import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { sheetLoader } from '#app/pages/share.server.ts'
import { SheetTable } from '#app/components/share/sheet-table.tsx'
import { translate } from '#app/lib/i18n.ts'
import type { loader as rootLoader } from '#app/root.tsx'
import { useT } from '#app/root.tsx'

export const meta: MetaFunction<typeof loader, { root: typeof rootLoader }> = ({ matches }) => {
  const lang = matches.find((m) => m.id === 'root')?.data?.lang ?? 'en'
  return [{ title: `${translate(lang, 'sheet.heading')} · ${translate(lang, 'app.title')}` }]
}

/** The root layout leaves out its header and navigation on this page (it lives in other sites' frames). */
export const handle = { bare: true }

/**
 * `/embed`: the shared table made to be framed; who may frame it is GLOSSARY_EMBED_ANCESTORS, read per request
 * (app/server/security-headers.server.ts). Without a session it shows a sign-in link that opens a new tab.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  return sheetLoader(request, 'embed')
}

export default function EmbedPage() {
  const t = useT()
  const data = useLoaderData<typeof loader>()
  if (!data.signedIn) {
    return (
      <section className="sheet embedded signed-out">
        <h1 className="visually-hidden">{t('sheet.heading')}</h1>
        <p>{t('sheet.signInHint')}</p>
        <p>
          <a href={data.loginHref} target="_blank" rel="noopener noreferrer" className="button">
            {t('sheet.signIn')}
          </a>
        </p>
      </section>
    )
  }
  // The frame shows only the table; its heading is for screen readers (the page's one <h1>).
  return (
    <>
      <h1 className="visually-hidden">{t('sheet.heading')}</h1>
      <SheetTable data={data} />
    </>
  )
}
