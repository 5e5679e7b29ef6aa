import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData, useSearchParams } from '@remix-run/react'
import { pageTitle } from '#app/lib/page-title.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { useDataTable } from '#app/components/data-table.tsx'
import { Pager } from '#app/components/pager.tsx'
import { useT } from '#app/root.tsx'
import { ListMeetingsQuerySchema } from '#app/schemas/meetings.ts'
import { listMeetings } from '#app/services/meetings/meetings.server.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'meetings.title') }]

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request)
  const params = new URL(request.url).searchParams
  const parsed = ListMeetingsQuerySchema.safeParse({
    status: params.get('status') || undefined,
    q: params.get('q') || undefined,
    team: params.get('team') || undefined,
    page: params.get('page') ?? undefined,
  })
  return listMeetings(parsed.success ? parsed.data : ListMeetingsQuerySchema.parse({}))
}

export default function MeetingsPage() {
  const t = useT()
  const { items, total, page, pageSize } = useLoaderData<typeof loader>()
  const [params] = useSearchParams()
  const archived = params.get('status') === 'archived'
  const table = useDataTable({
    date: 'meetings.date',
    title: 'wiki.pageTitle',
    team: 'meetings.team',
    source: 'meetings.source',
  })
  return (
    <section>
      <h1>{t('meetings.title')}</h1>
      <p className="notice warning">{t('meetings.notice')}</p>
      <p>
        {archived ? (
          <Link to="?">{t('meetings.active')}</Link>
        ) : (
          <Link to="?status=archived">{t('meetings.archived')}</Link>
        )}
      </p>
      <Form method="get" className="filters">
        {archived ? <input type="hidden" name="status" value="archived" /> : null}
        <label>
          {t('common.search')}
          <input name="q" defaultValue={params.get('q') ?? ''} />
        </label>
        <label>
          {t('meetings.team')}
          <input name="team" defaultValue={params.get('team') ?? ''} />
        </label>
        <button type="submit">{t('common.filter')}</button>
      </Form>
      {items.length === 0 ? (
        <p className="muted">{t('meetings.none')}</p>
      ) : (
        <table {...table.props}>
          {table.head}
          <tbody {...table.body}>
            {items.map((item) => (
              <tr {...table.row} key={item.id}>
                <td {...table.cell('date')}>{item.meetingDate.slice(0, 10)}</td>
                <td {...table.cell('title')}>
                  <Link to={`/meetings/${item.id}`}>{item.title}</Link>
                  <div className="muted small">{item.excerpt}</div>
                </td>
                <td {...table.cell('team')}>{item.team ?? ''}</td>
                <td {...table.cell('source')}>{item.source ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager total={total} page={page} pageSize={pageSize} />
    </section>
  )
}
