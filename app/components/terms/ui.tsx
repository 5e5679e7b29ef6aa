import { useRouteLoaderData } from '@remix-run/react'
import { formatNumber, translateCount, type CountKey, type MessageKey } from '#app/lib/i18n.ts'
import type { loader as rootLoader } from '#app/root.tsx'
import { useT } from '#app/root.tsx'

/** Small shared pieces of the glossary pages. */

export type Lang = 'en' | 'ko'

/** The language of the page. */
export function useLang(): Lang {
  return useRouteLoaderData<typeof rootLoader>('root')?.lang ?? 'en'
}

/** A number with its noun in the page's language and plural form (`1 term`, `2 terms`, `용어 2개`). */
export function useCount(): (base: CountKey, count: number) => string {
  const lang = useLang()
  return (base, count) => translateCount(lang, base, count)
}

/** A quantity in the page's language, its digits grouped by thousands (`12,000`). */
export function useNumber(): (n: number) => string {
  const lang = useLang()
  return (n) => formatNumber(lang, n)
}

/** A time as `YYYY-MM-DD HH:MM` (UTC), the same on server and browser. */
export function formatDate(iso: string | null | undefined): string {
  return iso ? `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC` : '—'
}

export const termHref = (slug: string) => `/terms/${encodeURIComponent(slug)}`

/** The kind of use of a notation as a coloured badge. */
export function KindBadge({ kind }: { kind: string }) {
  const t = useT()
  return <span className={`badge kind-${kind}`}>{t(`kind.${kind}` as MessageKey)}</span>
}

export function StatusBadge({ status }: { status: string }) {
  const t = useT()
  return <span className={`badge status-${status}`}>{t(`status.${status}` as MessageKey)}</span>
}

export interface ClassItem {
  key: string
  nameEn: string
  nameKo: string
}

/** The name of a domain or category in the page language (its key when unknown). */
export function className(items: readonly ClassItem[], key: string, lang: Lang): string {
  const item = items.find((i) => i.key === key)
  return item ? (lang === 'ko' ? item.nameKo : item.nameEn) : key
}
