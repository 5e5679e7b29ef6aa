import { MCP_PATH } from '#app/mcp/http.server.ts'
import type { ServerResponse } from 'node:http'
import type { ServerBuild } from '@remix-run/node'
import { matchRoutes } from '@remix-run/react'
import { API_PREFIX } from '#app/api/endpoint.server.ts'
import { router } from '#app/api/registry.server.ts'

/**
 * The `route` label of `glossary_http_requests_total` and its histogram: always one of a bounded set, never a
 * raw path (two term ids are one series). The API's endpoint template (`/api/v1/terms/{idOrSlug}`); a page's
 * Remix route id (`routes/terms.$slug._index`, matched as Remix matches it, over the build's route table); a
 * file of the client build `static`; `/healthz`, `/readyz`, `/metrics` as themselves; anything else
 * `unmatched`. A page without a build table to match against (the dev server's build function) is `page`.
 */
export type RouteLabeler = (method: string, path: string, res: ServerResponse) => string

const OWN_ROUTES = new Set(['/healthz', '/readyz', '/metrics', MCP_PATH])

/** Marks an answer as a static file (express.static's `setHeaders` runs only for a file it serves). */
export function markStatic(res: ServerResponse): void {
  ;(res as ServerResponse & { [STATIC]?: true })[STATIC] = true
}
const STATIC = Symbol('static file')

/** A route of the build as the router's matcher reads it. */
type RouteObject = NonNullable<Parameters<typeof matchRoutes>[0]>[number]

export function routeLabeler(build: ServerBuild | (() => Promise<ServerBuild>) | undefined): RouteLabeler {
  const pages = build === undefined ? undefined : typeof build === 'function' ? 'page' : pageRoutes(build)
  return (method, path, res) => {
    if (OWN_ROUTES.has(path)) return path
    if ((res as ServerResponse & { [STATIC]?: true })[STATIC]) return 'static'
    if (path.startsWith(`${API_PREFIX}/`)) {
      const match = router().match(method, path.slice(API_PREFIX.length))
      return match.kind === 'found' ? API_PREFIX + match.endpoint.path : 'unmatched'
    }
    if (pages === undefined) return 'unmatched'
    if (pages === 'page') return 'page'
    return pageRouteId(pages, path) ?? 'unmatched'
  }
}

/** The build's route table as the router's nested routes (what Remix's own matching walks). */
function pageRoutes(build: ServerBuild): RouteObject[] {
  const byParent = new Map<string, ServerBuild['routes'][string][]>()
  for (const route of Object.values(build.routes)) {
    const parent = route.parentId ?? ''
    byParent.set(parent, [...(byParent.get(parent) ?? []), route])
  }
  const tree = (parentId: string): RouteObject[] =>
    (byParent.get(parentId) ?? []).map((route) => {
      const children = tree(route.id)
      return route.index
        ? { id: route.id, path: route.path, index: true }
        : { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children }
    })
  return tree('')
}

/** The deepest route a page path matches; a single-fetch data request (`/terms/x.data`) as its page. */
function pageRouteId(routes: RouteObject[], path: string): string | undefined {
  let pathname = path
  if (pathname.endsWith('.data')) {
    pathname = pathname.slice(0, -'.data'.length)
    if (pathname === '/_root') pathname = '/'
  }
  try {
    // Checked here: the router would warn on the console for every such path, then match it undecoded.
    decodeURI(pathname)
  } catch {
    return undefined
  }
  return matchRoutes(routes, pathname)?.at(-1)?.route.id
}
