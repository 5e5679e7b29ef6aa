/**
 * In-process signal that the matchable glossary changed, raised AFTER a transaction commits (so listeners
 * never see uncommitted data). The matcher cache listens; other processes notice through the glossary
 * version counter instead (store.server.ts `bumpGlossaryVersion`).
 */
type Listener = () => void
const listeners = new Set<Listener>()

export function onGlossaryChanged(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function notifyGlossaryChanged(): void {
  for (const listener of listeners) listener()
}
