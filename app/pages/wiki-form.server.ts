import type { WikiFormValues } from '#app/components/content/wiki-editor.tsx'

/** Reads the wiki editor's fields; comma-separated lists become arrays (empty entries dropped). */
export function readWikiForm(form: FormData): WikiFormValues {
  const text = (name: string) => String(form.get(name) ?? '')
  return {
    title: text('title'),
    slug: text('slug'),
    content: text('content'),
    summary: text('summary'),
    sourceUrl: text('sourceUrl'),
    domain: text('domain'),
    termSlugs: text('termSlugs'),
    status: text('status'),
  }
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
}

/** The API body of the editor's values (the same schema parses both). */
export function wikiBody(values: WikiFormValues) {
  return {
    title: values.title,
    content: values.content,
    summary: values.summary || null,
    sourceUrl: values.sourceUrl || null,
    domain: splitList(values.domain),
    termSlugs: splitList(values.termSlugs),
    status: values.status,
  }
}
