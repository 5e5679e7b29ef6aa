import { fill } from '#app/lib/i18n.ts'
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import { PASSAGE_ANCHOR, readPassage } from '#app/lib/passage.ts'
import { orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser, requireUserAction } from '#app/pages/session.server.ts'
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
  const passage = readPassage(new URL(request.url).searchParams, meeting.content.length, meeting.revision)
  return { meeting, passage }
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
  const { meeting, passage } = useLoaderData<typeof loader>()
  const text = meeting.content
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
      {/* The original text exactly as recorded: plain text, never interpreted as Markdown or HTML; the passage a
          search result points at is marked (app/lib/passage.ts). */}
      {passage.kind === 'mark' ? (
        <pre className="original">
          {text.slice(0, passage.passage.start)}
          <mark className="passage" id={PASSAGE_ANCHOR}>
            {text.slice(passage.passage.start, passage.passage.end)}
          </mark>
          {text.slice(passage.passage.end)}
        </pre>
      ) : (
        <pre className="original">{text}</pre>
      )}
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
