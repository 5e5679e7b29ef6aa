import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { sheetLoader } from '#app/pages/share.server.ts'
import { SheetTable } from '#app/components/share/sheet-table.tsx'

export const meta: MetaFunction = () => [{ title: 'Glossary sheet' }]

/** `/sheet`: the shared table as a normal page (framing denied: `frame-ancestors 'none'`). */
export async function loader({ request }: LoaderFunctionArgs) {
  return sheetLoader(request, 'sheet')
}

export default function SheetPage() {
  const data = useLoaderData<typeof loader>()
  // The sheet always has a session (the loader redirects otherwise).
  return data.signedIn ? <SheetTable data={data} /> : null
}
