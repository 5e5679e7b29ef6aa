import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Link, useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { QuestionBox } from '#app/components/home/question-box.tsx'
import { TermFinder } from '#app/components/home/term-finder.tsx'
import { formatDate, StatusBadge, termHref, useCount, useLang, type Lang } from '#app/components/terms/ui.tsx'
import { fill } from '#app/lib/i18n.ts'
import { homeData, type FirstSteps, type HomeQueue } from '#app/pages/home.server.ts'
import { getSessionActor } from '#app/pages/session.server.ts'
import { useT, type loader as rootLoader } from '#app/root.tsx'

export const meta: MetaFunction = () => [{ title: 'Glossary' }]

/**
 * The home page (issue 27 item 3). A visitor sees what the glossary is and the way in; a signed-in user starts
 * here: find a term as you type, ask the chat a question (issue 29), the terms changed last, what waits for the
 * user's role and, for an administrator of a fresh install, the first steps.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await getSessionActor(request)
  if (!actor) return { home: null }
  return { home: await homeData(actor) }
}

type Home = NonNullable<Awaited<ReturnType<typeof loader>>['home']>

export default function HomePage() {
  const t = useT()
  const { home } = useLoaderData<typeof loader>()
  return (
    <section className="home">
      <h1>{t('app.title')}</h1>
      <p className="home-tagline">{t('app.tagline')}</p>
      {home ? <SignedIn home={home} /> : <Visitor />}
    </section>
  )
}

function Visitor() {
  const t = useT()
  const registerOpen = useRouteLoaderData<typeof rootLoader>('root')?.registerOpen ?? false
  return (
    <div className="home-visitor">
      <p>{t('home.visitor.what')}</p>
      <p className="home-actions">
        <Link to="/login" className="button">
          {t('home.visitor.signIn')}
        </Link>
        {registerOpen ? (
          <Link to="/register" className="button secondary">
            {t('home.visitor.register')}
          </Link>
        ) : null}
      </p>
    </div>
  )
}

function SignedIn({ home }: { home: Home }) {
  const role = useRouteLoaderData<typeof rootLoader>('root')?.user?.role ?? 'viewer'
  return (
    <>
      <TermFinder meaningSearch={home.meaningSearch} />
      <QuestionBox />
      {home.firstSteps ? <FirstStepsPanel steps={home.firstSteps} /> : null}
      <div className="home-grid">
        <RecentTerms recent={home.recent} now={home.now} />
        <div className="home-side">
          {role === 'viewer' ? null : <Queue queue={home.queue} />}
          <Shortcuts role={role} />
        </div>
      </div>
    </>
  )
}

/** "3 hours ago" from `now` (the loader's clock, so the server and the browser write the same words). */
function ago(iso: string, now: string, lang: Lang): string {
  const seconds = (new Date(iso).getTime() - new Date(now).getTime()) / 1000
  const format = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' })
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['second', 60],
    ['minute', 60],
    ['hour', 24],
    ['day', 30],
    ['month', 12],
  ]
  let value = seconds
  for (const [unit, size] of steps) {
    if (Math.abs(value) < size) return format.format(Math.round(value), unit)
    value /= size
  }
  return format.format(Math.round(value), 'year')
}

function RecentTerms({ recent, now }: { recent: Home['recent']; now: string }) {
  const t = useT()
  const lang = useLang()
  return (
    <section className="home-panel" aria-labelledby="home-recent" data-testid="home-recent-panel">
      <h2 id="home-recent">{t('home.recent.title')}</h2>
      {recent.length === 0 ? (
        <p className="muted">{t('home.recent.empty')}</p>
      ) : (
        <ol className="home-recent" data-testid="home-recent">
          {recent.map((term) => (
            <li key={term.id}>
              <Link to={termHref(term.slug)}>{term.name}</Link> <StatusBadge status={term.status} />
              <span className="muted small home-when">
                <time dateTime={term.updatedAt} title={formatDate(term.updatedAt)}>
                  {ago(term.updatedAt, now, lang)}
                </time>
                {term.updatedBy ? ` · ${fill(t('home.recent.by'), { name: term.updatedBy })}` : ''}
              </span>
            </li>
          ))}
        </ol>
      )}
      <p className="small">
        <Link to="/terms">{t('home.recent.all')}</Link>
      </p>
    </section>
  )
}

/** What waits for an editor or an administrator, each with the page that handles it. */
function Queue({ queue }: { queue: HomeQueue }) {
  const t = useT()
  const count = useCount()
  const waiting = [
    queue.proposals
      ? { to: '/relations?status=proposed', text: count('count.home-proposal', queue.proposals) }
      : null,
    queue.candidates ? { to: '/candidates', text: count('count.home-candidate', queue.candidates) } : null,
    queue.failedIndexRows
      ? { to: '/admin/search-index', text: count('count.home-failed-row', queue.failedIndexRows) }
      : null,
  ].filter((item) => item !== null)
  return (
    <section className="home-panel" aria-labelledby="home-queue" data-testid="home-queue">
      <h2 id="home-queue">{t('home.queue.title')}</h2>
      {waiting.length === 0 ? (
        <p className="muted">{t('home.queue.nothing')}</p>
      ) : (
        <ul className="home-links">
          {waiting.map((item) => (
            <li key={item.to}>
              <Link to={item.to}>{item.text}</Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function Shortcuts({ role }: { role: string }) {
  const t = useT()
  const editor = role === 'editor' || role === 'admin'
  return (
    <section className="home-panel" aria-labelledby="home-do" data-testid="home-do">
      <h2 id="home-do">{t('home.do.title')}</h2>
      <ul className="home-links">
        {editor ? (
          <>
            <li>
              <Link to="/terms/new">{t('home.do.newTerm')}</Link>
            </li>
            <li>
              <Link to="/import">{t('home.do.import')}</Link>
            </li>
          </>
        ) : null}
        <li>
          <Link to="/check">{t('home.do.check')}</Link>
        </li>
        <li>
          <Link to="/relations/new">{t('home.do.propose')}</Link>
        </li>
        <li>
          <Link to="/terms">{t('home.do.browse')}</Link>
        </li>
        <li>
          <Link to="/wiki">{t('home.do.wiki')}</Link>
        </li>
      </ul>
      {editor ? null : <p className="muted small">{t('home.do.viewerNote')}</p>}
    </section>
  )
}

/** A fresh install's setup, for an administrator while there is no term. */
function FirstStepsPanel({ steps }: { steps: FirstSteps }) {
  const t = useT()
  const done = (yes: boolean) =>
    yes ? (
      <span className="badge home-done" data-testid="step-done">
        ✓ {t('home.first.done')}
      </span>
    ) : null
  return (
    <section className="home-panel home-first" aria-labelledby="home-first" data-testid="home-first-steps">
      <h2 id="home-first">{t('home.first.title')}</h2>
      <p>{t('home.first.intro')}</p>
      <ol className="home-steps">
        <li>
          <Link to="/admin/classification">{t('home.first.classification')}</Link>{' '}
          {done(steps.classificationDefined)}
          <br />
          <span className="muted small">{t('home.first.classificationHint')}</span>
        </li>
        <li>
          <Link to="/import">{t('home.first.import')}</Link> ·{' '}
          <a href="/api/v1/import/template.csv" download>
            {t('home.first.template')}
          </a>
          <br />
          <Link to="/terms/new">{t('home.first.newTerm')}</Link>
        </li>
        <li>
          <Link to="/admin/sso">{t('home.first.users')}</Link>
          <br />
          <Link to="/admin/users">{t('home.first.roles')}</Link>
        </li>
        <li>
          <Link to="/admin/search-settings">{t('home.first.search')}</Link> {done(steps.searchOn)}
        </li>
      </ol>
      <p className="muted small">
        <a href="/api/v1/openapi">{t('home.first.api')}</a>
      </p>
    </section>
  )
}
