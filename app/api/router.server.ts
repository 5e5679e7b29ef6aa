import type { Endpoint, Method } from './endpoint.server.ts'

/**
 * Matches `/api/v1` paths against the endpoint table. Templates use OpenAPI's `{name}` segments; literal
 * segments win over parameters (`/terms/lookup` before `/terms/{idOrSlug}`).
 */
interface CompiledRoute {
  endpoint: Endpoint
  segments: { literal?: string; param?: string }[]
  literalCount: number
}

export type RouteMatch =
  | { kind: 'found'; endpoint: Endpoint; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: Method[] }
  | { kind: 'not_found' }
  | { kind: 'bad_encoding' }

export class Router {
  private readonly routes: CompiledRoute[]

  constructor(endpoints: Endpoint[]) {
    const seen = new Set<string>()
    this.routes = endpoints
      .map((endpoint) => {
        const key = `${endpoint.method} ${endpoint.path}`
        if (seen.has(key)) throw new Error(`Endpoint declared twice: ${key}`)
        seen.add(key)
        const segments = split(endpoint.path).map((s) =>
          s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s },
        )
        return { endpoint, segments, literalCount: segments.filter((s) => s.literal !== undefined).length }
      })
      // More literal segments first, so a fixed path is preferred to a parameter at the same place.
      .sort((a, b) => b.literalCount - a.literalCount)
  }

  /** `path` is relative to /api/v1 and still percent-encoded. */
  match(method: string, path: string): RouteMatch {
    let parts: string[]
    try {
      parts = split(path).map((s) => decodeURIComponent(s))
    } catch {
      return { kind: 'bad_encoding' }
    }
    const allow: Method[] = []
    for (const route of this.routes) {
      const params = matchSegments(route, parts)
      if (!params) continue
      if (route.endpoint.method === method || (method === 'HEAD' && route.endpoint.method === 'GET')) {
        return { kind: 'found', endpoint: route.endpoint, params }
      }
      allow.push(route.endpoint.method)
    }
    return allow.length ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' }
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0)
}

function matchSegments(route: CompiledRoute, parts: string[]): Record<string, string> | undefined {
  if (route.segments.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const segment = route.segments[i]!
    if (segment.literal !== undefined) {
      if (segment.literal !== parts[i]) return undefined
    } else {
      params[segment.param!] = parts[i]!
    }
  }
  return params
}
