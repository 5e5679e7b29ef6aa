import { describe, expect, it } from 'vitest'
import { errorForLog, scrubSecrets, sqlShape } from './log-safety.ts'

describe('what an error may say in the log', () => {
  it('keeps the shape of a failing statement, never its values', () => {
    const error = Object.assign(
      new Error(
        `insert into "users" ("email", "password_hash") values ('a@b.example', '$argon2id$v=19$m=1$abc$def') - duplicate key value violates unique constraint "users_email_unique"`,
      ),
      {
        name: 'UniqueConstraintViolationException',
        code: '23505',
        constraint: 'users_email_unique',
        detail: 'Key (email)=(a@b.example) already exists.',
      },
    )
    const logged = errorForLog(error)
    expect(logged.message).toBe(
      'insert into "users" ("email", "password_hash") values (?, ?) - duplicate key value violates unique constraint "users_email_unique"',
    )
    expect(logged.code).toBe('23505')
    expect(logged.constraint).toBe('users_email_unique')
    expect(JSON.stringify(logged)).not.toMatch(/a@b\.example|argon2|Key \(email\)/)
    // The stack keeps only its frames: its first line would repeat the message with the values.
    expect(logged.stack).not.toContain('insert into')
    expect(logged.stack).toMatch(/^\s+at /)
  })

  it("handles quotes inside literals and PostgreSQL's E'' strings", () => {
    expect(sqlShape(`select 'it''s', E'a\\nb', "col" from t where x = 'y'`)).toBe(
      `select ?, ?, "col" from t where x = ?`,
    )
  })

  it('scrubs credentials, hashes and emails from any error text, causes included', () => {
    const token = `glk_0123abcd_${'x'.repeat(43)}`
    const hash = 'f'.repeat(64)
    const error = new Error(`failed for someone@example.test with ${token}`, {
      cause: new Error(`hash ${hash} / Bearer abc.def-ghi`),
    })
    const logged = JSON.stringify(errorForLog(error))
    expect(logged).not.toContain('someone@example.test')
    expect(logged).not.toContain(token)
    expect(logged).not.toContain(hash)
    expect(logged).not.toContain('abc.def-ghi')
    expect(scrubSecrets('at file:///app/node_modules/@mikro-orm/core/x.js:1:2')).toContain('@mikro-orm/core')
  })

  it('logs thrown non-errors as text', () => {
    expect(errorForLog('plain')).toEqual({ type: 'string', message: 'plain' })
  })
})
