import { describe, expect, it } from 'vitest'
import { parseSyncArgs } from './cli-args.ts'

const CWD = '/home/op'

describe('glossary sync arguments', () => {
  it('reads each subcommand with its defaults and its options', () => {
    expect(parseSyncArgs(['export'], CWD)).toEqual({
      kind: 'run',
      command: { command: 'export', incremental: false, outDir: CWD, label: null },
    })
    expect(
      parseSyncArgs(['export', '--incremental', '--out', 'bundles', '--label=Seoul office'], CWD),
    ).toEqual({
      kind: 'run',
      command: { command: 'export', incremental: true, outDir: '/home/op/bundles', label: 'Seoul office' },
    })
    expect(parseSyncArgs(['import', '/media/usb', '--apply', '--keep-local-edits', '--json'], CWD)).toEqual({
      kind: 'run',
      command: { command: 'import', target: '/media/usb', apply: true, keepLocalEdits: true, json: true },
    })
    expect(parseSyncArgs(['import', 'in.glossary-sync.json.gz'], CWD)).toMatchObject({
      command: {
        target: '/home/op/in.glossary-sync.json.gz',
        apply: false,
        keepLocalEdits: false,
        json: false,
      },
    })
    expect(parseSyncArgs(['status', '--json'], CWD)).toEqual({
      kind: 'run',
      command: { command: 'status', json: true },
    })
  })

  it('answers help for sync itself and for each subcommand, before its operands are checked', () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const parsed = parseSyncArgs(args, CWD)
      expect(parsed.kind === 'help' && parsed.text).toMatch(/^glossary sync: [^]*export[^]*import[^]*status/)
    }
    for (const name of ['export', 'import', 'status']) {
      for (const flag of ['--help', '-h']) {
        const parsed = parseSyncArgs([name, flag], CWD)
        expect(parsed.kind === 'help' && parsed.text, name).toMatch(new RegExp(`^glossary sync ${name} `))
      }
    }
  })

  it('refuses what it does not know, with the usage of the subcommand', () => {
    const refused = (args: string[]) => {
      const parsed = parseSyncArgs(args, CWD)
      expect(parsed.kind, args.join(' ')).toBe('usage')
      return parsed as Extract<typeof parsed, { kind: 'usage' }>
    }
    expect(refused([]).message).toMatch(/name a subcommand/)
    expect(refused(['push']).message).toBe('unknown subcommand "push"')
    const unknown = refused(['export', '--incremental', '--all'])
    expect(unknown.message).toBe("Unknown option '--all'")
    expect(unknown.usage).toMatch(/^glossary sync export /)
    expect(refused(['export', '--out']).message).toMatch(/--out/)
    expect(refused(['import', '--apply=yes', 'x']).message).toMatch(/--apply/)
    expect(refused(['import']).message).toBe('"sync import" takes one <file-or-folder> (got: none)')
    expect(refused(['import', 'a', 'b']).message).toMatch(/got: a b/)
    expect(refused(['status', 'now']).message).toMatch(/takes no operand/)
    expect(refused(['export', '--label', 'x'.repeat(101)]).message).toMatch(/^--label: /)
  })
})
