import { describe, expect, it } from 'vitest'
import { MigrationFailedError, PendingMigrationsError } from '#db/migrator.ts'
import { operatorMessage, StartupError } from './startup-failures.server.ts'

describe('operatorMessage', () => {
  it('gives the one line of a failure the operator fixes, among them a migration that failed', () => {
    const failed = new MigrationFailedError(
      Object.assign(new Error('Migration M1 (up) failed: Original error: boom'), {
        migration: { name: 'M1' },
        cause: new Error('relation "x" already exists\n    at somewhere'),
      }),
      '1.2.0',
    )
    expect(operatorMessage(failed)).toBe(failed.message)
    expect(failed.message).toMatch(
      /^Migration M1 failed: relation "x" already exists at somewhere\. No pending/,
    )
    expect(failed.message).toContain('at release 1.2.0')
    const long = new MigrationFailedError(
      new Error(`create table t (\n${'  c int,\n'.repeat(200)}) - relation "t" already exists`),
      undefined,
    )
    expect(long.message).toMatch(
      /^Migration \(unknown\) failed: ….*- relation "t" already exists\. No pending/,
    )
    expect(long.message).not.toContain('\n')
    expect(operatorMessage(new StartupError('port in use'))).toBe('port in use')
    expect(operatorMessage(new PendingMigrationsError(['M2']))).toMatch(/glossary migrate/)
  })

  it('gives nothing for a fault of the program, whose stack is what helps', () => {
    expect(operatorMessage(new TypeError('x is undefined'))).toBeUndefined()
    expect(operatorMessage('not an error')).toBeUndefined()
  })
})
