/**
 * Korean and English labels. The language comes from the `lang` cookie, else Accept-Language, else English.
 * Shared by server and browser, so it holds no secrets and reads no environment.
 */
import { commonEn, commonKo } from './messages/common.ts'
import { siteEn, siteKo } from './messages/site.ts'
import { homeEn, homeKo } from './messages/home.ts'
import { classificationEn, classificationKo } from './messages/classification.ts'
import { pickerEn, pickerKo } from './messages/picker.ts'
import { adminEn, adminKo } from './messages/admin.ts'
import { fieldsEn, fieldsKo } from './messages/fields.ts'
import { contentEn, contentKo } from './messages/content.ts'
import { identityEn, identityKo } from './messages/identity.ts'
import { searchEn, searchKo } from './messages/search.ts'
import { ssoEn, ssoKo } from './messages/sso.ts'
import { shareEn, shareKo } from './messages/share.ts'
import { termsEn, termsKo } from './messages/terms.ts'
import { aiObservabilityEn, aiObservabilityKo } from './messages/ai-observability.ts'
import { chatEn, chatKo } from './messages/chat.ts'
import { aiProviderEn, aiProviderKo } from './messages/ai-provider.ts'
import { syncEn, syncKo } from './messages/sync.ts'

export const LANGS = ['en', 'ko'] as const
export type Lang = (typeof LANGS)[number]

// One dictionary per area (app/lib/messages/*.ts), so features add their labels without touching each other.
const en = {
  ...commonEn,
  ...contentEn,
  ...identityEn,
  ...ssoEn,
  ...termsEn,
  ...shareEn,
  ...searchEn,
  ...siteEn,
  ...homeEn,
  ...classificationEn,
  ...pickerEn,
  ...adminEn,
  ...fieldsEn,
  ...aiObservabilityEn,
  ...chatEn,
  ...aiProviderEn,
  ...syncEn,
} as const

export type MessageKey = keyof typeof en

/**
 * A counted noun is a family of keys `base.one`, `base.other`, … (the categories of Intl.PluralRules), each
 * with `{count}`. A language keeps only the forms its grammar has: Korean has no plural, so only `.other`.
 */
type SingularKey = Extract<MessageKey, `${string}.one`>
type BaseOf<K> = K extends `${infer Base}.other` ? Base : never
export type CountKey = BaseOf<MessageKey>

const ko: Record<Exclude<MessageKey, SingularKey>, string> = {
  ...commonKo,
  ...contentKo,
  ...identityKo,
  ...ssoKo,
  ...termsKo,
  ...shareKo,
  ...searchKo,
  ...siteKo,
  ...homeKo,
  ...classificationKo,
  ...pickerKo,
  ...adminKo,
  ...fieldsKo,
  ...aiObservabilityKo,
  ...chatKo,
  ...aiProviderKo,
  ...syncKo,
}

const MESSAGES: Record<Lang, Partial<Record<MessageKey, string>>> = { en, ko }

export function translate(lang: Lang, key: MessageKey): string {
  return MESSAGES[lang][key] ?? en[key]
}

const numberFormats = new Map<Lang, Intl.NumberFormat>()

/** A quantity as the language writes it, its digits grouped by thousands: `12,000` (English and Korean alike). */
export function formatNumber(lang: Lang, n: number): string {
  let format = numberFormats.get(lang)
  if (!format) numberFormats.set(lang, (format = new Intl.NumberFormat(lang)))
  return format.format(n)
}

/** `count` with its noun in the language's plural form: `1 term`, `2 terms`, `12,000 terms`, `용어 2개`. */
export function translateCount(lang: Lang, base: CountKey, count: number): string {
  const category = new Intl.PluralRules(lang).select(count)
  const forms = MESSAGES[lang]
  // The language's own `.other` before English: a missing form of a language must not fall back to English.
  const template =
    forms[`${base}.${category}` as MessageKey] ?? forms[`${base}.other` as MessageKey] ?? en[`${base}.other`]
  return template.replace(/\{count\}/g, formatNumber(lang, count))
}

/** Fills `{name}` placeholders of a label; a placeholder with no value stays as written. */
export function fill(template: string, vars: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole))
}

/** Whether `key` names a label (for keys that arrive from outside the code, such as a flash cookie's). */
export function isMessageKey(key: unknown): key is MessageKey {
  return typeof key === 'string' && Object.hasOwn(en, key)
}

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value)
}

/** The name of the cookie that keeps the chosen language (written by `/lang`). */
export const LANG_COOKIE = 'lang'

/**
 * The language of a request: the `lang` cookie's value (read by the root loader through the cookie module),
 * else the first supported Accept-Language entry.
 */
export function detectLang(cookieLang: string | undefined, acceptLanguage: string | null): Lang {
  if (isLang(cookieLang)) return cookieLang
  const accept = (acceptLanguage ?? '').toLowerCase()
  for (const part of accept.split(',')) {
    const code = part.trim().slice(0, 2)
    if (isLang(code)) return code
  }
  return 'en'
}
