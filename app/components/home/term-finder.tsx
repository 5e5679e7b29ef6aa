import { Form, Link, useFetcher } from '@remix-run/react'
import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import { StatusBadge, termHref, useCount } from '#app/components/terms/ui.tsx'
import { fill } from '#app/lib/i18n.ts'
import type { FormFailure } from '#app/pages/forms.server.ts'
import { useT } from '#app/root.tsx'

/** A term as `/find` answers it. */
interface Found {
  id: string
  slug: string
  name: string
  status: string
  notation?: string | null
}
type FindAnswer = { q: string; ok: true; items: Found[]; total: number } | (FormFailure & { q: string })

/** The pause after the last key before asking the server. */
const TYPING_PAUSE_MS = 250

const findHref = (q: string, by: 'name' | 'meaning') =>
  `/find?${new URLSearchParams(by === 'name' ? { q } : { q, by })}`

/**
 * The home page's "Find a term" box. Without JavaScript it is a GET form to `/search` (which searches by
 * meaning, or by name when that is off). With JavaScript it lists matches below the box as you type: terms
 * whose name or notation contains the text (`/find`), and — when search by meaning can run — the best terms by
 * meaning, from a second request so the name matches never wait for the provider. The count is announced to
 * screen readers (a polite status); the arrow keys move between the box and the links.
 */
export function TermFinder({ meaningSearch }: { meaningSearch: boolean }) {
  const t = useT()
  const count = useCount()
  const names = useFetcher<FindAnswer>()
  const meaning = useFetcher<FindAnswer>()
  const [query, setQuery] = useState('')
  const timer = useRef<ReturnType<typeof setTimeout>>()
  const box = useRef<HTMLInputElement>(null)
  const results = useRef<HTMLDivElement>(null)
  useEffect(() => () => clearTimeout(timer.current), [])

  function typed(value: string) {
    clearTimeout(timer.current)
    const q = value.trim()
    if (q === '') {
      setQuery('')
      return
    }
    timer.current = setTimeout(() => {
      setQuery(q)
      names.load(findHref(q, 'name'))
      if (meaningSearch) meaning.load(findHref(q, 'meaning'))
    }, TYPING_PAUSE_MS)
  }

  /** Arrow keys: from the box down into the links and back; Escape returns to the box. */
  function moveFocus(event: KeyboardEvent) {
    if (!['ArrowDown', 'ArrowUp', 'Escape'].includes(event.key)) return
    const links = [...(results.current?.querySelectorAll<HTMLAnchorElement>('a[data-found]') ?? [])]
    const at = links.indexOf(document.activeElement as HTMLAnchorElement)
    const next =
      event.key === 'Escape'
        ? -1
        : event.key === 'ArrowDown'
          ? Math.min(at + 1, links.length - 1)
          : at === -1
            ? -1
            : at - 1
    if (links.length === 0 && event.key !== 'Escape') return
    event.preventDefault()
    if (next === -1) box.current?.focus()
    else links[next]?.focus()
  }

  const shown = query !== '' ? names.data : undefined
  const byName = shown && shown.ok ? shown : null
  const byMeaning = query !== '' && meaningSearch ? meaning.data : undefined
  const loading = names.state === 'loading' || (meaningSearch && meaning.state === 'loading')

  return (
    <div className="home-find" onKeyDown={moveFocus}>
      <Form method="get" action="/search" role="search" className="home-find-form">
        <label htmlFor="home-find-q">{t('home.find.label')}</label>
        <div className="home-find-row">
          <input
            ref={box}
            id="home-find-q"
            type="search"
            name="q"
            required
            maxLength={200}
            autoComplete="off"
            aria-describedby="home-find-hint"
            aria-controls="home-find-results"
            onChange={(event) => typed(event.currentTarget.value)}
          />
          <button type="submit">{t('home.find.submit')}</button>
        </div>
        <p id="home-find-hint" className="muted small">
          {t(meaningSearch ? 'home.find.hintMeaning' : 'home.find.hint')}
        </p>
      </Form>
      <div id="home-find-results" ref={results} className="home-find-results" data-testid="home-find-results">
        <p role="status" className="muted small" data-testid="home-find-status">
          {query === ''
            ? ''
            : loading && !byName
              ? t('home.find.searching')
              : byName
                ? byName.total === 0
                  ? fill(t('home.find.none'), { q: byName.q })
                  : count('count.home-match', byName.total)
                : ''}
        </p>
        {byName && byName.items.length > 0 ? (
          <>
            {meaningSearch ? <h3 className="home-find-heading">{t('home.find.byName')}</h3> : null}
            <ul className="home-find-list">
              {byName.items.map((term) => (
                <FoundTerm key={term.id} term={term} />
              ))}
            </ul>
            {byName.total > byName.items.length ? (
              <p className="small">
                <Link to={`/terms?${new URLSearchParams({ q: byName.q })}`}>{t('home.find.all')}</Link>
              </p>
            ) : null}
          </>
        ) : null}
        {byMeaning ? (
          <>
            <h3 className="home-find-heading">{t('home.find.byMeaning')}</h3>
            {byMeaning.ok ? (
              byMeaning.items.length === 0 ? (
                <p className="muted small">{t('home.find.noneByMeaning')}</p>
              ) : (
                <ul className="home-find-list">
                  {byMeaning.items.map((term) => (
                    <FoundTerm key={term.id} term={term} />
                  ))}
                </ul>
              )
            ) : (
              <p className="muted small">{t('home.find.meaningFailed')}</p>
            )}
            <p className="small">
              <Link to={`/search?${new URLSearchParams({ q: byMeaning.q })}`}>
                {fill(t('home.find.searchPage'), { q: byMeaning.q })}
              </Link>
            </p>
          </>
        ) : null}
      </div>
    </div>
  )
}

function FoundTerm({ term }: { term: Found }) {
  const t = useT()
  return (
    <li>
      <Link to={termHref(term.slug)} data-found="">
        {term.name}
      </Link>
      {term.notation ? (
        <span className="muted small">
          {' '}
          · {t('home.find.notation')} <span className="notation">{term.notation}</span>
        </span>
      ) : null}{' '}
      <StatusBadge status={term.status} />
    </li>
  )
}
