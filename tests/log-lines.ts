import { Writable } from 'node:stream'
import { setLogDestination } from '#app/lib/logger.server.ts'

/** Sends this process's log lines (every level the logger writes) into `lines`, for a test to read them. */
export function captureLogLines(lines: string[]): void {
  setLogDestination(
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean))
        done()
      },
    }),
  )
}
