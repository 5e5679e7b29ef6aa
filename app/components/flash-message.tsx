import { useLocation } from '@remix-run/react'
import { useEffect, useState } from 'react'
import type { ShownFlash } from '#app/lib/flash.ts'

/**
 * The confirmation of the last action, above the page's content (`text` is the flash's label, filled in the
 * page's language by the root layout). The root loader hands it over once; with JavaScript the root's data
 * outlives a link's navigation, so the message is hidden once the reader moves on to another page, and a newer
 * one (another id) shows again.
 */
export function FlashMessage({ flash, text }: { flash: ShownFlash; text: string }) {
  const location = useLocation()
  const [shown, setShown] = useState<{ id: string; locationKey: string } | null>(null)
  useEffect(() => {
    if (shown?.id !== flash.id) setShown({ id: flash.id, locationKey: location.key })
  }, [flash.id, shown, location.key])
  if (shown?.id === flash.id && shown.locationKey !== location.key) return null
  return (
    <div className={`flash flash-${flash.kind}`} role={flash.kind === 'error' ? 'alert' : 'status'}>
      {text}
    </div>
  )
}
