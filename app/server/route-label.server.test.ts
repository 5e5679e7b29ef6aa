import type { ServerResponse } from 'node:http'
import type { ServerBuild } from '@remix-run/node'
import { describe, expect, it } from 'vitest'
import { markStatic, routeLabeler } from './route-label.server.ts'

/** A build with the route table's shape (ids, parents, paths, index routes); the modules are not used. */
function buildOf(routes: { id: string; parentId?: string; path?: string; index?: boolean }[]): ServerBuild {
  return {
    routes: Object.fromEntries(routes.map((r) => [r.id, { ...r, module: {} }])),
  } as unknown as ServerBuild
}

const BUILD = buildOf([
  { id: 'root', path: '' },
  { id: 'routes/_index', parentId: 'root', index: true },
  { id: 'routes/terms._index', parentId: 'root', path: 'terms', index: true },
  { id: 'routes/terms.$slug._index', parentId: 'root', path: 'terms/:slug', index: true },
  { id: 'routes/terms.$slug.edit', parentId: 'root', path: 'terms/:slug/edit' },
  { id: 'routes/chat.($id)', parentId: 'root', path: 'chat/:id?' },
])

const res = () => ({}) as ServerResponse

describe('the route label of a request', () => {
  const label = routeLabeler(BUILD)

  it('is the API endpoint template, never the raw path', () => {
    expect(label('GET', '/api/v1/terms/3f1c2d9e-0000-4000-8000-000000000001', res())).toBe(
      '/api/v1/terms/{idOrSlug}',
    )
    expect(label('GET', '/api/v1/terms/some-slug', res())).toBe('/api/v1/terms/{idOrSlug}')
    expect(label('POST', '/api/v1/terms/lookup', res())).toBe('/api/v1/terms/lookup')
    expect(label('HEAD', '/api/v1/terms', res())).toBe('/api/v1/terms')
    expect(label('GET', '/api/v1/no/such/thing', res())).toBe('unmatched')
    expect(label('PUT', '/api/v1/terms', res())).toBe('unmatched')
  })

  it("is a page's Remix route id, its data requests included", () => {
    expect(label('GET', '/', res())).toBe('routes/_index')
    expect(label('GET', '/terms', res())).toBe('routes/terms._index')
    expect(label('GET', '/terms/abc', res())).toBe('routes/terms.$slug._index')
    expect(label('POST', '/terms/abc/edit', res())).toBe('routes/terms.$slug.edit')
    expect(label('GET', '/terms/abc/edit.data', res())).toBe('routes/terms.$slug.edit')
    expect(label('GET', '/_root.data', res())).toBe('routes/_index')
    expect(label('GET', '/chat', res())).toBe('routes/chat.($id)')
    expect(label('GET', '/chat/42', res())).toBe('routes/chat.($id)')
    expect(label('GET', '/no/such/page', res())).toBe('unmatched')
    expect(label('GET', '/%E0%A4%A', res())).toBe('unmatched')
  })

  it('names static files, the health routes and the metrics route', () => {
    const file = res()
    markStatic(file)
    expect(label('GET', '/assets/entry.client-abc123.js', file)).toBe('static')
    expect(label('GET', '/favicon.ico', file)).toBe('static')
    for (const path of ['/healthz', '/readyz', '/metrics', '/mcp'])
      expect(label('GET', path, res())).toBe(path)
  })

  it('is `page` without a route table (the dev server) and `unmatched` without pages (API only)', () => {
    expect(routeLabeler(() => Promise.resolve(BUILD))('GET', '/terms/x', res())).toBe('page')
    expect(routeLabeler(undefined)('GET', '/terms/x', res())).toBe('unmatched')
  })
})
