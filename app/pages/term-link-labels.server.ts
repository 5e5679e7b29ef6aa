import { translate } from '#app/lib/i18n.ts'
import { pageLang } from '#app/lib/request-lang.server.ts'
import type { TermLinkLabels } from '#app/services/annotate/annotate.server.ts'

/** The words of the term links' tooltips in the reader's language (wiki pages and meeting records). */
export function termLinkLabels(): TermLinkLabels {
  const lang = pageLang()
  return {
    lang,
    useInstead: translate(lang, 'termLinks.useInstead'),
    deprecatedTerm: translate(lang, 'termLinks.deprecatedTerm'),
  }
}
