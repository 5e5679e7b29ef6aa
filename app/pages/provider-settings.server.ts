import type { AppLoadContext } from '@remix-run/node'
import { redirectWithFlash } from '#app/lib/flash.server.ts'
import type { MessageKey } from '#app/lib/i18n.ts'

/**
 * The end of a save on a provider settings page (the search settings, the AI provider): back to the page with
 * a flash that says it is saved, or — when a new address cleared stored secrets — an `info` flash saying to type
 * them again (the page marks each as not configured).
 */
export function savedSettings(
  page: string,
  saved: { clearedSecrets: readonly string[] },
  messages: { saved: MessageKey; secretsCleared: MessageKey },
  context: AppLoadContext,
) {
  const cleared = saved.clearedSecrets.length > 0
  return redirectWithFlash(
    page,
    { kind: cleared ? 'info' : 'success', message: cleared ? messages.secretsCleared : messages.saved },
    context,
  )
}
