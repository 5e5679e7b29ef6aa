import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { RELEASE } from './release.ts'

describe('RELEASE', () => {
  it('is the version package.json gives (what `glossary version`, the migrator and the bundles report)', () => {
    expect(RELEASE).toBe(JSON.parse(fs.readFileSync('package.json', 'utf8')).version)
  })
})
