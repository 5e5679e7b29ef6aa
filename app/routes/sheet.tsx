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

/** `/sheet`: the shared table as a normal page (framing denied: `frame-ancestors 'none'`). */
export async function loader({ request }: LoaderFunctionArgs) {
  return sheetLoader(request, 'sheet')
}

export default function SheetPage() {
  const t = useT()
  const data = useLoaderData<typeof loader>()
  // The sheet always has a session (the loader redirects otherwise).
  return data.signedIn ? (
    <section>
      <h1>{t('sheet.heading')}</h1>
      <SheetTable data={data} />
    </section>
  ) : null
}
