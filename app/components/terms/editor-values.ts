import { NOTATION_KINDS, type NotationKind } from '#domain/terms.ts'

/**
 * The editor form as plain strings, shared by the editor component (default values) and its action (which
 * reads the posted form back into the same shape, so a failed save re-renders exactly what the user typed).
 */

export interface NotationRow {
  text: string
  kind: NotationKind
  lang: string
}

export interface EditorValues {
  slug: string
  name: string
  fullName: string
  nameEn: string
  nameKo: string
  status: string
  domains: string[]
  categories: string[]
  tags: string
  definition: string
  body: string
  note: string
  notations: NotationRow[]
}

export const EMPTY_NOTATION: NotationRow = { text: '', kind: 'admitted', lang: '' }

export const EMPTY_VALUES: EditorValues = {
  slug: '',
  name: '',
  fullName: '',
  nameEn: '',
  nameKo: '',
  status: '',
  domains: [],
  categories: [],
  tags: '',
  definition: '',
  body: '',
  note: '',
  notations: [{ ...EMPTY_NOTATION }, { ...EMPTY_NOTATION }],
}

/** The editor values of a saved term. */
export function valuesOfTerm(term: {
  slug: string
  name: string
  fullName: string | null
  nameEn: string | null
  nameKo: string | null
  status: string
  domains: string[]
  categories: string[]
  tags: string[]
  definition: string
  body: string
  notations: { text: string; kind: NotationKind; lang: string | null }[]
}): EditorValues {
  return {
    slug: term.slug,
    name: term.name,
    fullName: term.fullName ?? '',
    nameEn: term.nameEn ?? '',
    nameKo: term.nameKo ?? '',
    status: term.status,
    domains: term.domains,
    categories: term.categories,
    tags: term.tags.join(', '),
    definition: term.definition,
    body: term.body,
    note: '',
    notations: term.notations.map((n) => ({ text: n.text, kind: n.kind, lang: n.lang ?? '' })),
  }
}

const text = (form: FormData, name: string) => {
  const value = form.get(name)
  return typeof value === 'string' ? value : ''
}
const texts = (form: FormData, name: string) =>
  form.getAll(name).filter((v): v is string => typeof v === 'string')

const isKind = (v: string): v is NotationKind => (NOTATION_KINDS as readonly string[]).includes(v)

/** Reads the posted editor form (notation rows are the repeated fields notationText/Kind/Lang). */
export function valuesFromForm(form: FormData): EditorValues {
  const rowTexts = texts(form, 'notationText')
  const rowKinds = texts(form, 'notationKind')
  const rowLangs = texts(form, 'notationLang')
  return {
    slug: text(form, 'slug'),
    name: text(form, 'name'),
    fullName: text(form, 'fullName'),
    nameEn: text(form, 'nameEn'),
    nameKo: text(form, 'nameKo'),
    status: text(form, 'status'),
    domains: texts(form, 'domains'),
    categories: texts(form, 'categories'),
    tags: text(form, 'tags'),
    // Browsers post textarea line breaks as CRLF; store LF.
    definition: text(form, 'definition').replace(/\r\n/g, '\n'),
    body: text(form, 'body').replace(/\r\n/g, '\n'),
    note: text(form, 'note'),
    notations: rowTexts.map((t, i) => {
      const kind = rowKinds[i] ?? 'admitted'
      return { text: t, kind: isKind(kind) ? kind : 'admitted', lang: rowLangs[i] ?? '' }
    }),
  }
}

/**
 * The request body of create/update built from the form values. Empty notation rows are left out;
 * `rowOf[i]` is the form row of the i-th notation sent (to put error messages next to the right row).
 */
export function inputOfValues(values: EditorValues): { input: Record<string, unknown>; rowOf: number[] } {
  const rowOf: number[] = []
  const notations: { text: string; kind: NotationKind; lang: string | null }[] = []
  values.notations.forEach((n, i) => {
    if (!n.text.trim()) return
    rowOf.push(i)
    notations.push({ text: n.text, kind: n.kind, lang: n.lang.trim() || null })
  })
  const input: Record<string, unknown> = {
    name: values.name,
    fullName: values.fullName || null,
    nameEn: values.nameEn || null,
    nameKo: values.nameKo || null,
    notations,
    domains: values.domains,
    categories: values.categories,
    tags: values.tags
      .split(/[,，]/)
      .map((s) => s.trim())
      .filter(Boolean),
    definition: values.definition,
    body: values.body,
    note: values.note,
  }
  if (values.slug.trim()) input.slug = values.slug.trim()
  if (values.status) input.status = values.status
  return { input, rowOf }
}

/** Moves `notations.<i>.<field>` error keys to the form row they came from. */
export function errorsToRows(
  fieldErrors: Record<string, string> | undefined,
  rowOf: number[],
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [path, message] of Object.entries(fieldErrors ?? {})) {
    const m = /^notations\.(\d+)(?:\.(\w+))?$/.exec(path)
    if (m) {
      const row = rowOf[Number(m[1])] ?? Number(m[1])
      out[`notations.${row}.${m[2] ?? 'text'}`] ??= message
    } else {
      out[path] ??= message
    }
  }
  return out
}

/** Appends an image reference to a Markdown body on a line of its own. */
export function appendToBody(body: string, markdown: string): string {
  if (!body) return `${markdown}\n`
  return `${body.replace(/\n*$/, '')}\n\n${markdown}\n`
}

/** Who saved the revision that made an edit stale, for the conflict message. */
export interface ConflictInfo {
  baseRevision: number
  currentRevision: number
  savedBy: string | null
  savedAt: string
  slug: string
}

/** What the editor action answers (besides the redirect after a save). */
export interface EditorResult {
  ok: boolean
  intent: string
  /** Changes on every answer so the form re-mounts with `values`. */
  nonce: string
  values: EditorValues
  /** The revision the edit started from (kept across answers, never the one saved meanwhile). */
  baseRevision?: number
  fieldErrors?: Record<string, string>
  formError?: string
  code?: string
  conflict?: ConflictInfo
  previewHtml?: string
  /** The Markdown of an uploaded image (inserted at the cursor by the page when JavaScript runs). */
  markdown?: string
}
