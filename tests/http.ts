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

/** A JSON call to the test server; the body of the answer is parsed loosely (tests inspect it as JSON). */
export async function apiCall(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: Headers; contentType: string | null; text: string; json: any }> {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return {
    status: res.status,
    headers: res.headers,
    contentType: res.headers.get('content-type'),
    text,
    // Only JSON bodies are parsed: CSV templates and empty 204s come back as text.
    json: /^\s*[[{]/.test(text) ? JSON.parse(text) : undefined,
  }
}
