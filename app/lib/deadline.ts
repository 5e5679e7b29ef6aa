/**
 * An abort signal that fires after `ms`, held by its own timer until `clear()`. Not `AbortSignal.timeout`: Node
 * holds that signal only weakly, and one reachable only through `AbortSignal.any` can be garbage-collected
 * before it fires (nodejs/node#57736: a streamed answer outlived its time limit); and it cannot be cleared, so
 * it fires even after the work it limits has finished (the page renderer then aborted finished renders).
 */
export function deadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), ms)
  // The work it limits keeps the process alive while it runs; a pending deadline alone must not.
  timer.unref()
  return { signal: controller.signal, clear: () => clearTimeout(timer) }
}
