import { Link, useFetcher } from '@remix-run/react'
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react'
import { useCount } from '#app/components/terms/ui.tsx'
import { fill } from '#app/lib/i18n.ts'
import { useT } from '#app/root.tsx'

/** A term as the picker shows it (the relation API's term item: current revision and definition). */
export interface PickerTerm {
  id: string
  slug: string
  name: string
  revision: number
  definition: string
}

/** What `/relations/terms?q=…` answers (app/routes/relations.terms.tsx). */
interface Suggestions {
  q: string
  items: PickerTerm[]
  total: number
}

/** The pause after the last key before asking the server. */
const TYPING_PAUSE_MS = 200

/**
 * A field that takes one term by name (the relation form's source and target). The typed text is posted as
 * `<field>`; with JavaScript, suggestions appear as you type (an ARIA combobox: arrow keys, Enter, Escape; the
 * count is announced) and choosing one fills the hidden `<field>Id`. Without JavaScript the text alone is
 * posted and the server resolves it (app/pages/term-choice.server.ts): when it names several terms the page
 * comes back with `options`, a radio list posted as `<field>Id`; when it names none, `error` says so here.
 */
export function TermPicker(props: {
  field: string
  label: string
  defaultText?: string
  defaultTerm?: PickerTerm | null
  error?: string
  options?: PickerTerm[]
}) {
  const t = useT()
  const base = `picker-${props.field}`
  const [text, setText] = useState(props.defaultText || props.defaultTerm?.name || '')
  const [chosen, setChosen] = useState<PickerTerm | null>(props.defaultTerm ?? null)
  // Changed since the server's answer: its message and choice are about a text no longer there.
  const [touched, setTouched] = useState(false)
  useEffect(() => {
    // A new answer of the form (with JavaScript the picker stays mounted): show what it says.
    setTouched(false)
    setChosen(props.defaultTerm ?? null)
  }, [props.defaultTerm, props.error, props.options])
  const options = touched ? [] : (props.options ?? [])
  const error = touched ? undefined : props.error
  const describedBy = [`${base}-hint`, error ? `${base}-error` : ''].filter(Boolean).join(' ')
  return (
    <div className="term-picker" data-picker={props.field}>
      <label htmlFor={base}>{props.label}</label>
      <SuggestInput
        id={base}
        name={props.field}
        label={props.label}
        value={text}
        onText={(value) => {
          setText(value)
          setChosen(null)
          setTouched(true)
        }}
        onPick={(term) => {
          setText(term.name)
          setChosen(term)
          setTouched(true)
        }}
        describedBy={describedBy}
        invalid={Boolean(error)}
      />
      {chosen ? <input type="hidden" name={`${props.field}Id`} value={chosen.id} /> : null}
      <p id={`${base}-hint`} className="muted small picker-hint" data-testid={`${base}-hint`}>
        {chosen ? (
          <>
            {fill(t('picker.chosen'), { name: chosen.name })}
            {chosen.definition ? ` · ${clip(chosen.definition, 120)}` : ''}
          </>
        ) : (
          t('picker.hint')
        )}
      </p>
      {error && options.length === 0 ? (
        <p id={`${base}-error`} className="error picker-error">
          {error}{' '}
          {text.trim() ? (
            <Link to={`/terms?${new URLSearchParams({ q: text.trim() })}`}>{t('picker.searchList')}</Link>
          ) : null}
        </p>
      ) : null}
      {options.length ? (
        <fieldset className="picker-choice" aria-describedby={`${base}-error`}>
          <legend id={`${base}-error`} className="error">
            {error}
          </legend>
          {options.map((term) => (
            <TermOption key={term.id} name={`${props.field}Id`} term={term} />
          ))}
        </fieldset>
      ) : null}
    </div>
  )
}

/** One radio of a choice the server offered: the term's name, address and definition. */
export function TermOption(props: { name: string; term: PickerTerm; checked?: boolean }) {
  return (
    <label className="picker-option">
      {/* Not required: the text may be changed instead; the server asks again if it still names several. */}
      <input type="radio" name={props.name} value={props.term.id} defaultChecked={props.checked} />
      <span>
        <strong>{props.term.name}</strong> <span className="muted small">/{props.term.slug}</span>
        {props.term.definition ? (
          <span className="muted small picker-definition">{clip(props.term.definition, 140)}</span>
        ) : null}
      </span>
    </label>
  )
}

/**
 * With JavaScript only: a box whose suggestions add a term elsewhere (the wiki's linked terms list), leaving
 * the box empty for the next one. Rendered after hydration, so a page without JavaScript shows no dead input.
 */
export function TermAdder(props: { label: string; onPick: (term: PickerTerm) => void }) {
  const id = useId()
  const [hydrated, setHydrated] = useState(false)
  const [text, setText] = useState('')
  useEffect(() => setHydrated(true), [])
  if (!hydrated) return null
  return (
    <div className="term-picker term-adder">
      <label htmlFor={id}>{props.label}</label>
      <SuggestInput
        id={id}
        label={props.label}
        value={text}
        onText={setText}
        onPick={(term) => {
          setText('')
          props.onPick(term)
        }}
      />
    </div>
  )
}

/** The text box with its suggestion list (an ARIA 1.2 combobox over a listbox) and the announced count. */
function SuggestInput(props: {
  id: string
  name?: string
  label: string
  value: string
  onText: (value: string) => void
  onPick: (term: PickerTerm) => void
  describedBy?: string
  invalid?: boolean
}) {
  const t = useT()
  const count = useCount()
  const fetcher = useFetcher<Suggestions>()
  const [query, setQuery] = useState('')
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(-1)
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  const box = useRef<HTMLInputElement>(null)
  useEffect(() => () => clearTimeout(timer.current), [])
  useEffect(() => {
    // Text typed before the page's script ran is in the box but not in the state: take it over.
    const typedEarly = box.current?.value ?? ''
    if (typedEarly !== props.value) typed(typedEarly)
    // Once, after hydration.
  }, [])

  const answer = fetcher.data && fetcher.data.q === query ? fetcher.data : undefined
  const items = open && answer ? answer.items : []
  const listId = `${props.id}-list`

  function typed(value: string) {
    props.onText(value)
    setActive(-1)
    clearTimeout(timer.current)
    const q = value.trim()
    if (q === '') {
      setQuery('')
      setOpen(false)
      return
    }
    timer.current = setTimeout(() => {
      setQuery(q)
      setOpen(true)
      fetcher.load(`/relations/terms?${new URLSearchParams({ q })}`)
    }, TYPING_PAUSE_MS)
  }

  function pick(term: PickerTerm) {
    props.onPick(term)
    setOpen(false)
    setActive(-1)
  }

  function keyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' && answer?.items.length) {
      event.preventDefault()
      setOpen(true)
      setActive((at) => Math.min(at + 1, answer.items.length - 1))
    } else if (event.key === 'ArrowUp' && items.length) {
      event.preventDefault()
      setActive((at) => Math.max(at - 1, 0))
    } else if (event.key === 'Enter' && items[active]) {
      // Enter chooses the highlighted suggestion instead of submitting the form.
      event.preventDefault()
      pick(items[active])
    } else if (event.key === 'Escape' && open) {
      event.preventDefault()
      setOpen(false)
      setActive(-1)
    }
  }

  const status =
    query === '' || !open
      ? ''
      : !answer
        ? t('picker.searching')
        : answer.total === 0
          ? fill(t('picker.noMatch'), { q: answer.q })
          : count('count.picker-match', answer.total)

  return (
    <div className="picker-box">
      <input
        ref={box}
        id={props.id}
        name={props.name}
        type="text"
        value={props.value}
        maxLength={200}
        autoComplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={items.length > 0}
        aria-controls={listId}
        aria-activedescendant={items[active] ? `${listId}-${active}` : undefined}
        aria-describedby={props.describedBy}
        aria-invalid={props.invalid ? true : undefined}
        onChange={(event) => typed(event.currentTarget.value)}
        onKeyDown={keyDown}
        onBlur={() => setOpen(false)}
        onFocus={() => setOpen(props.value.trim() !== '' && query === props.value.trim())}
      />
      <ul
        id={listId}
        role="listbox"
        aria-label={fill(t('picker.suggestions'), { q: query })}
        className="picker-list"
        hidden={items.length === 0}
      >
        {items.map((term, index) => (
          <li
            key={term.id}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === active}
            className="picker-suggestion"
            // Keeps the focus in the box, so the click lands before the box closes the list on blur.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => pick(term)}
          >
            <span className="picker-name">{term.name}</span>
            {term.definition ? (
              <span className="muted small picker-definition">{clip(term.definition, 90)}</span>
            ) : null}
          </li>
        ))}
      </ul>
      <p className="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
    </div>
  )
}

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text
}
