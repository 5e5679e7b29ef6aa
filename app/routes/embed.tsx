import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { sheetLoader } from '#app/pages/share.server.ts'
import { SheetTable } from '#app/components/share/sheet-table.tsx'
import { useT } from '#app/root.tsx'

export const meta: MetaFunction = () => [{ title: 'Glossary' }]

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
        <p>{t('sheet.signInHint')}</p>
        <p>
          <a href={data.loginHref} target="_blank" rel="noopener noreferrer" className="button">
            {t('sheet.signIn')}
          </a>
        </p>
      </section>
    )
  }
  return <SheetTable data={data} />
}
