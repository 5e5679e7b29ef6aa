import type { MessageKey } from './i18n.ts'

/**
 * A short confirmation shown once on the next page after an action ("Relation proposed.", "Role changed."):
 * a label key and the values of its `{name}` placeholders, so it is shown in the reader's language. Written by
 * `app/lib/flash.server.ts`, shown by the root layout (`app/components/flash-message.tsx`).
 */
export interface Flash {
  kind: FlashKind
  message: MessageKey
  values?: Record<string, string>
}

export const FLASH_KINDS = ['success', 'info', 'error'] as const
export type FlashKind = (typeof FLASH_KINDS)[number]

/** A flash as the page receives it: with the id of its writing, so the page can tell a new one from one already shown. */
export interface ShownFlash extends Flash {
  id: string
}
