import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { afterAll, beforeAll } from 'vitest'
import { createHttpApp } from '#app/server/http.server.ts'

/** A real HTTP server on 127.0.0.1 serving the API (no Remix build) for the test file. */
export function useApiServer(): { url: () => string } {
  let server: Server | undefined
  let base = ''
  beforeAll(async () => {
    server = createHttpApp().listen(0, '127.0.0.1')
    await new Promise<void>((resolve) => server!.once('listening', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve())
  })
  return { url: () => base }
}
