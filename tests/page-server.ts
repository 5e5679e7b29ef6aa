import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import type { ServerBuild } from '@remix-run/node'
import { afterAll, beforeAll, expect } from 'vitest'
import * as entryServer from '#app/entry.server.tsx'
import * as root from '#app/root.tsx'
import { answerClientErrors, createHttpApp } from '#app/server/http.server.ts'
import { TEST_ORIGIN } from './factories.ts'

/**
 * The real web app (Express, the page input guard, Remix's request handler, the root layout and the server
 * renderer) serving the given route modules on 127.0.0.1, for integration tests of pages over real HTTP
 * without a Vite build: the modules are the ones vitest imports, so they share this test file's database.
 * Browser assets are not served (the script addresses in the page lead nowhere); what a browser does with
 * the page is the e2e tests' part.
 */

type RouteModule = ServerBuild['routes'][string]['module']

export interface PageRoute {
  /** The route's address pattern, as Remix's file name gives it (`admin/search-settings`). */
  path: string
  /** The route module as the app's build imports it (a `meta` typed by its loader does not fit Remix's type). */
  module: object
}

export interface PageAnswer {
  status: number
  html: string
  /** Where a redirect points, if it is one. */
  location: string | null
  headers: Headers
}

function buildOf(routes: Record<string, PageRoute>): ServerBuild {
  const serverRoutes: ServerBuild['routes'] = {
    root: { id: 'root', path: '', module: root as unknown as RouteModule },
  }
  const assetRoutes: ServerBuild['assets']['routes'] = {
    root: assetRoute('root', undefined, '', root as unknown as RouteModule),
  }
  for (const [id, route] of Object.entries(routes)) {
    const module = route.module as RouteModule
    serverRoutes[id] = { id, parentId: 'root', path: route.path, module }
    assetRoutes[id] = assetRoute(id, 'root', route.path, module)
  }
  return {
    mode: 'production',
    entry: { module: entryServer as unknown as ServerBuild['entry']['module'] },
    routes: serverRoutes,
    assets: {
      entry: { module: '/assets/entry.client.js', imports: [] },
      routes: assetRoutes,
      url: '/assets/manifest-test.js',
      version: 'test',
    },
    basename: '/',
    publicPath: '/',
    assetsBuildDirectory: 'build/client',
    future: {
      v3_fetcherPersist: true,
      v3_relativeSplatPath: true,
      v3_throwAbortReason: true,
      v3_singleFetch: true,
      v3_lazyRouteDiscovery: true,
    } as unknown as ServerBuild['future'],
    isSpaMode: false,
  }
}

function assetRoute(id: string, parentId: string | undefined, path: string, module: RouteModule) {
  return {
    id,
    parentId,
    path,
    hasAction: 'action' in module,
    hasLoader: 'loader' in module,
    hasClientAction: false,
    hasClientLoader: false,
    hasErrorBoundary: 'ErrorBoundary' in module,
    module: `/assets/${id}.js`,
    imports: [],
    css: [],
  }
}

/** Starts the app with these routes for the test file; `get` and `post` speak to it as a browser would. */
export function usePageServer(routes: Record<string, PageRoute>) {
  let server: Server | undefined
  let base = ''
  beforeAll(async () => {
    server = answerClientErrors(createHttpApp({ build: buildOf(routes) }).listen(0, '127.0.0.1'))
    await new Promise<void>((resolve) => server!.once('listening', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve())
  })

  async function send(path: string, init: RequestInit): Promise<PageAnswer> {
    const res = await fetch(`${base}${path}`, { ...init, redirect: 'manual' })
    return {
      status: res.status,
      html: await res.text(),
      location: res.headers.get('location'),
      headers: res.headers,
    }
  }

  return {
    url: () => base,
    /** A page as a browser loads it, with the given cookie-session headers (or none). */
    get: (path: string, session: Record<string, string> = {}) =>
      send(path, { headers: { cookie: session.cookie ?? '', 'accept-language': 'en' } }),
    /** A form post from our own origin (a URL-encoded body, as a form without JavaScript sends it). */
    post: (
      path: string,
      fields: Record<string, string> | [string, string][],
      session: Record<string, string> = {},
    ) =>
      send(path, {
        method: 'POST',
        headers: {
          cookie: session.cookie ?? '',
          origin: session.origin ?? TEST_ORIGIN,
          'accept-language': 'en',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(fields).toString(),
      }),
  }
}

/** The text of a page without tags, whitespace folded: what a reader sees. */
export function pageText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ')
}

/**
 * The HTML of the first element at or after `from` whose start tag carries `attribute` (`data-testid="answer"`),
 * up to the end tag that balances it: the part of a page a test reads.
 */
export function elementWith(html: string, attribute: string, from = 0): string {
  const start = html.indexOf(attribute, from)
  expect(start, attribute).toBeGreaterThan(-1)
  const open = html.lastIndexOf('<', start)
  const tag = /^<(\w+)/.exec(html.slice(open))![1]!
  let depth = 0
  const pattern = new RegExp(`<(/?)${tag}\\b`, 'g')
  pattern.lastIndex = open
  for (let m = pattern.exec(html); m; m = pattern.exec(html)) {
    depth += m[1] ? -1 : 1
    if (depth === 0) return html.slice(open, m.index)
  }
  throw new Error(`no end of ${attribute}`)
}

/** Every element whose start tag carries `attribute`, as `elementWith` reads one. */
export function elementsWith(html: string, attribute: string): string[] {
  const parts: string[] = []
  for (let at = html.indexOf(attribute); at !== -1; at = html.indexOf(attribute, at + 1)) {
    parts.push(elementWith(html, attribute, at))
  }
  return parts
}
