import * as fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { lintFromString, loadConfig } from '@redocly/openapi-core'
import { Document, Spectral } from '@stoplight/spectral-core'
import Parsers from '@stoplight/spectral-parsers'
import { bundleAndLoadRuleset } from '@stoplight/spectral-ruleset-bundler/with-loader'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ENDPOINTS } from '#app/api/registry.server.ts'
import { buildOpenApiDocument } from '#app/api/openapi.server.ts'
import { SLUG_PATTERN, SLUG_PATTERN_PORTABLE } from '#app/schemas/terms.ts'

/**
 * The OpenAPI document as third-party tools read it: Spectral with `.spectral.yaml` and Redocly with
 * `redocly.yaml` (both at the repository root, as their CLIs expect) must report no error and no warning
 * (docs/decisions/011-openapi-document.md). Both run in process, and nothing may reach the network.
 */

const root = (file: string) => fileURLToPath(new URL(`../../${file}`, import.meta.url))
const source = JSON.stringify(buildOpenApiDocument(ENDPOINTS, '0.0.0-test'), null, 2)

const noNetwork = vi.fn(async (input: unknown) => {
  throw new Error(`The OpenAPI lint tried to fetch ${String(input)}`)
})
beforeEach(() => {
  vi.stubGlobal('fetch', noNetwork)
})
afterEach(() => {
  vi.unstubAllGlobals()
  expect(noNetwork).not.toHaveBeenCalled()
})

describe('the OpenAPI document under third-party linters', () => {
  it('refers to nothing outside itself', () => {
    const refs = [...source.matchAll(/"\$ref": "([^"]*)"/g)].map((m) => m[1]!)
    expect(refs.length).toBeGreaterThan(0)
    expect(refs.filter((ref) => !ref.startsWith('#/'))).toEqual([])
  })

  it('Spectral (spectral:oas) reports nothing', async () => {
    const spectral = new Spectral()
    spectral.setRuleset(await bundleAndLoadRuleset(root('.spectral.yaml'), { fs, fetch: noNetwork }))
    const results = await spectral.run(new Document(source, Parsers.Json, 'openapi.json'))
    const report = results.map(
      (r) => `${['error', 'warn', 'info', 'hint'][r.severity]} ${r.code} ${r.path.join('.')}: ${r.message}`,
    )
    expect(report).toEqual([])
  })

  it('Redocly (recommended) reports nothing', async () => {
    const config = await loadConfig({ configPath: root('redocly.yaml') })
    const problems = await lintFromString({ source, absoluteRef: root('openapi.json'), config })
    const report = problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)
    expect(report).toEqual([])
  })
})

describe('the slug pattern as the document states it', () => {
  const unicode = new RegExp(SLUG_PATTERN_PORTABLE.source, 'u')
  const plain = new RegExp(SLUG_PATTERN_PORTABLE.source)

  it('accepts every slug the server accepts, with and without Unicode mode', () => {
    const pieces: string[] = []
    for (let cp = 0x80; cp <= 0x10ffff; cp += cp < 0x10000 ? 1 : 0x3f) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const c = String.fromCodePoint(cp)
      if (SLUG_PATTERN.test(c)) pieces.push(c)
    }
    expect(pieces.length).toBeGreaterThan(1000)
    const refused = pieces
      .flatMap((c) => [c, `${c}${c}`, `a-${c}`, `${c}-1`])
      .filter((slug) => !unicode.test(slug) || !plain.test(slug))
    expect(refused).toEqual([])
  })

  it('is the server rule exactly for ASCII, and refuses white space', () => {
    const ascii = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i))
    const samples = [...ascii, ...ascii.flatMap((c) => [`a${c}`, `${c}1`, `a${c}b`, `${c}${c}`])]
    const differing = samples.filter(
      (s) => plain.test(s) !== SLUG_PATTERN.test(s) || unicode.test(s) !== SLUG_PATTERN.test(s),
    )
    expect(differing).toEqual([])
    for (const s of ['a\u00a0b', 'a\u3000b', '\u2028']) expect(plain.test(s) || unicode.test(s)).toBe(false)
  })
})
