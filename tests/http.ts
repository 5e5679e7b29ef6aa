import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { afterAll, beforeAll } from 'vitest'
import { handleApiRequest } from '#app/api/handler.server.ts'
import { answerClientErrors, createHttpApp } from '#app/server/http.server.ts'

/** Response bodies are inspected loosely in tests, as JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any

type ApiCall = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) => ReturnType<typeof apiCall>

/**
 * A real HTTP server on 127.0.0.1 serving the API (no Remix build) for the test file: its address, and `api`,
 * a JSON call to it (`apiCall` bound to the server).
 */
export function useApiServer(): { url: () => string; api: ApiCall } {
  let server: Server | undefined
  let base = ''
  beforeAll(async () => {
    server = answerClientErrors(createHttpApp().listen(0, '127.0.0.1'))
    await new Promise<void>((resolve) => server!.once('listening', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve())
  })
  return {
    url: () => base,
    api: (method, path, headers, body) => apiCall(base, method, path, headers, body),
  }
}

/** A JSON call to the test server; the body of the answer is parsed loosely (tests inspect it as JSON). */
export async function apiCall(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Headers; contentType: string | null; text: string; json: Json }> {
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

export interface DispatchOptions {
  method?: string
  headers?: Record<string, string>
  body?: unknown
  ip?: string
  isHttps?: boolean
}

/**
 * Calls the real API dispatcher (every registered endpoint, the real auth gate) without an HTTP server, with
 * a JSON body; the method defaults to POST when there is a body.
 */
export function dispatch(path: string, options: DispatchOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers }
  let body: string | undefined
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.body)
  }
  return handleApiRequest(
    new Request(`http://internal/api/v1${path}`, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
    }),
    { requestId: 'test', ip: options.ip ?? '127.0.0.1', isHttps: options.isHttps ?? false },
  )
}
