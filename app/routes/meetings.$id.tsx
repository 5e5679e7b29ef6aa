import { fill } from '#app/lib/i18n.ts'
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { askedPassage, passageFor } from '#app/lib/passage.ts'
import { orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
import { termLinkLabels } from '#app/pages/term-link-labels.server.ts'
import { recordHtmlWithTermLinks } from '#app/services/annotate/page-links.server.ts'
import { useOptionalUser, useT } from '#app/root.tsx'
import { archiveMeeting, getMeeting } from '#app/services/meetings/meetings.server.ts'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.meeting.title ?? 'Meeting'} · Glossary` },
]

function load(id: string) {
  return orErrorPage(() => getMeeting({ id }))
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireUser(request)
  const meeting = await load(params.id!)
  const asked = askedPassage(new URL(request.url).searchParams)
  const passage = passageFor(asked, meeting.content.length, meeting.revision)
  // The text exactly as recorded (escaped), the uses of glossary terms linked, the passage asked marked.
  const html = await recordHtmlWithTermLinks(meeting, asked, termLinkLabels())
  return { meeting, passage, html }
}

/** Records are read-only; the one change is archiving, by an admin. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireUserAction(request, 'admin')
  await load(params.id!)
  const meeting = await archiveMeeting({ id: params.id!, actorId: actor.user.id })
  return redirectWithFlash(
    `/meetings/${encodeURIComponent(meeting.id)}`,
    { kind: 'success', message: 'flash.meetingArchived', values: { title: meeting.title } },
    context,
  )
}

export default function MeetingReader() {
  const t = useT()
  const user = useOptionalUser()
  const { meeting, passage, html } = useLoaderData<typeof loader>()
  return (
    <article>
      <p>
        <Link to="/meetings">{t('meetings.title')}</Link>
      </p>
      <h1>{meeting.title}</h1>
      <p role="note" className="notice warning">
        {t('meetings.notice')}
      </p>
      <p className="muted">
        {t('meetings.date')}: {meeting.meetingDate.slice(0, 10)}
        {meeting.team ? ` · ${t('meetings.team')}: ${meeting.team}` : ''}
        {meeting.source ? ` · ${t('meetings.source')}: ${meeting.source}` : ''}
        {meeting.status === 'archived' ? ` · ${t('meetings.archived')}` : ''}
      </p>
      {passage.kind === 'stale' ? (
        <p className="notice">{fill(t('search.passageStale'), { revision: passage.revision })}</p>
      ) : null}
      {/* The original text exactly as recorded: plain text, escaped, never interpreted as Markdown or HTML; the
          uses of glossary terms linked and the passage a search result points at marked, by the service
          (app/services/annotate/page-links.server.ts). */}
      <pre className="original" dangerouslySetInnerHTML={{ __html: html }} />
      {user?.role === 'admin' && meeting.status === 'active' ? (
        <Form method="post">
          <button type="submit" className="danger">
            {t('meetings.archive')}
          </button>
        </Form>
      ) : null}
    </article>
  )
}
