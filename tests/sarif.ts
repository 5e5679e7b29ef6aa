import { readFileSync } from 'node:fs'
import Ajv from 'ajv-draft-04'
import addFormats from 'ajv-formats'
import { expect } from 'vitest'
import { SarifLogSchema } from '#app/schemas/validation.ts'

/** The official SARIF 2.1.0 schema (tests/fixtures/README.md says where it comes from). */
const validateSarif = (() => {
  const ajv = new Ajv({ allErrors: true })
  // Formats are only annotations to ajv unless added: `uri-reference` is what artifact URIs must satisfy.
  addFormats(ajv)
  const schema = JSON.parse(
    readFileSync(new URL('./fixtures/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
  )
  return ajv.compile(schema)
})()

/**
 * Asserts that a SARIF answer is valid against the official schema, and that the schema the OpenAPI document
 * declares for it describes it completely (parsing strips unknown keys, so anything undeclared shows as a diff).
 */
export function expectValidSarif(log: unknown): void {
  const valid = validateSarif(log)
  expect(validateSarif.errors ?? [], 'SARIF 2.1.0 schema').toEqual([])
  expect(valid).toBe(true)
  expect(SarifLogSchema.parse(log)).toEqual(log)
}
