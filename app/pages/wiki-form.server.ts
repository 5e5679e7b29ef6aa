import type { WikiFormValues } from '#app/components/content/wiki-editor.tsx'
import { fill, translate, type Lang, type MessageKey } from '#app/lib/i18n.ts'
import { listClassification } from '#app/services/terms/classification.server.ts'
import { chooseTerms, pickFieldOf, type EntryChoice } from './term-choice.server.ts'

/** Reads the wiki editor's fields: the domains are checkboxes, the linked terms one text (a list of names). */
export function readWikiForm(form: FormData): WikiFormValues {
  const text = (name: string) => String(form.get(name) ?? '')
  return {
    title: text('title'),
    slug: text('slug'),
    content: text('content'),
    summary: text('summary'),
    sourceUrl: text('sourceUrl'),
    domain: [...new Set(form.getAll('domain').map(String).filter(Boolean))],
    termSlugs: text('termSlugs'),
    status: text('status'),
    // A checkbox: sent only when checked.
    termLinks: form.get('termLinks') !== null,
  }
}

/** The domains the wiki editor offers: the classification scheme's, as the term editor shows them. */
export async function wikiDomains() {
  return (await listClassification({ kind: 'domain' })).items.map(({ key, nameEn, nameKo }) => ({
    key,
    nameEn,
    nameKo,
  }))
}

/** An entry of the linked terms that names several terms, with the radio group that settles it. */
export interface LinkedTermChoice extends EntryChoice {
  field: string
}

export type PreparedWikiForm =
  | { ok: true; domain: string[]; termSlugs: string[] }
  | {
      ok: false
      formError: string
      fieldErrors: Record<string, string>
      choices: LinkedTermChoice[]
    }

/**
 * What the page form adds to the API's rules before the same schema parses the body:
 * - domains come from the classification scheme (the API keeps taking any key, as its specification says;
 *   a key the page already carries stays allowed, so an edit never has to drop it);
 * - linked terms are typed by name, notation or address and resolved here (app/pages/term-choice.server.ts):
 *   unknown ones are named in the field's message, ambiguous ones come back as a choice.
 */
export async function prepareWikiForm(
  form: FormData,
  values: WikiFormValues,
  options: { lang: Lang; keptDomains?: readonly string[] },
): Promise<PreparedWikiForm> {
  const say = (key: MessageKey, vars: Record<string, string> = {}) => fill(translate(options.lang, key), vars)
  const fieldErrors: Record<string, string> = {}
  const scheme = new Set((await wikiDomains()).map((domain) => domain.key))
  const kept = new Set(options.keptDomains ?? [])
  const unknownDomain = values.domain.find((key) => !scheme.has(key) && !kept.has(key))
  if (unknownDomain !== undefined) fieldErrors.domain = say('picker.domainUnknown', { key: unknownDomain })
  const linked = await chooseTerms(form, 'termSlugs', options.lang)
  if (!linked.ok) fieldErrors.termSlugs = linked.message
  const choices = linked.ok
    ? []
    : linked.choices.map((choice) => ({ ...choice, field: pickFieldOf('termSlugs', choice.entry) }))
  if (Object.keys(fieldErrors).length || !linked.ok) {
    const labels: Record<string, MessageKey> = { domain: 'picker.domainsOf', termSlugs: 'wiki.linkedTerms' }
    return {
      ok: false,
      formError: say('picker.formError', {
        fields: Object.keys(fieldErrors)
          .map((field) => translate(options.lang, labels[field]!))
          .join(', '),
      }),
      fieldErrors,
      choices,
    }
  }
  return { ok: true, domain: values.domain, termSlugs: linked.terms.map((term) => term.slug) }
}

/** The API body of the editor's values, with the prepared domains and linked terms' slugs. */
export function wikiBody(values: WikiFormValues, prepared: { domain: string[]; termSlugs: string[] }) {
  return {
    title: values.title,
    content: values.content,
    summary: values.summary || null,
    sourceUrl: values.sourceUrl || null,
    domain: prepared.domain,
    termSlugs: prepared.termSlugs,
    status: values.status,
    termLinks: values.termLinks,
  }
}
