import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ENV_VARIABLES } from '#app/lib/config.server.ts'

// The README table and .env.example are the configuration's documentation; they must name every variable.
describe('configuration documentation', () => {
  const readme = fs.readFileSync('README.md', 'utf8')
  const example = fs.readFileSync('.env.example', 'utf8')
  it.each(ENV_VARIABLES)('%s is in README.md and .env.example', (name) => {
    expect(readme).toContain(`\`${name}\``)
    expect(example).toMatch(new RegExp(`^${name}=`, 'm'))
  })
})
