import { isLang, translate, type MessageKey } from './i18n.ts'

/**
 * A page's <title> in the reader's language: its heading's label, then the app's name ("Terms · Glossary",
 * "용어 · 용어 사전"). The language is the root loader's; `matches` is what a route's `meta` receives.
 */
export function pageTitle(matches: readonly { id: string; data?: unknown }[], key: MessageKey): string {
  const lang = (matches.find((m) => m.id === 'root')?.data as { lang?: unknown } | undefined)?.lang
  const shown = isLang(lang) ? lang : 'en'
  return `${translate(shown, key)} · ${translate(shown, 'app.title')}`
}
