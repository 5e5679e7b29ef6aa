import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import {
  compileNotationsOffThread,
  compilerEntry,
  lastCompileThread,
  stopCompileWorker,
} from './compile-worker.ts'
import { buildMatcher, matcherFromCompiled } from './matcher.ts'

afterAll(async () => {
  await stopCompileWorker()
})

describe('compiling on a worker thread', () => {
  it('builds the same matcher as the main thread, off the main thread', async () => {
    const entries = ['API', 'data pipeline', '용어', 'ＡＰＩ', '', '데이터 파이프라인'].map((text, id) => ({
      id,
      text,
    }))
    const compiled = await compileNotationsOffThread(entries.map((e) => e.text))
    expect(lastCompileThread).toBe('worker')
    const offThread = matcherFromCompiled(entries, compiled)
    const onThread = buildMatcher(entries)
    const text = 'API를 쓰는 data pipeline에서 용어는 데이터 파이프라인에 ＡＰＩ'
    const strip = (ms: ReturnType<typeof onThread.scan>) =>
      ms.map((m) => [m.start, m.end, m.entries.map((e) => e.id)])
    expect(strip(offThread.scan(text))).toEqual(strip(onThread.scan(text)))
    expect(offThread.stats).toEqual(onThread.stats)
    expect(offThread.scan(text)).toHaveLength(5)
  })

  it('answers concurrent requests each with its own result', async () => {
    const [a, b] = await Promise.all([
      compileNotationsOffThread(['alpha', 'beta']),
      compileNotationsOffThread(['gamma']),
    ])
    expect(a.notations).toEqual(['alpha', 'beta'])
    expect(b.notations).toEqual(['gamma'])
  })
})

describe('the file the compiler thread runs', () => {
  it('is the compiler build beside the server build, never the whole server build when it is there', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-compiler-entry-'))
    try {
      const server = pathToFileURL(path.join(dir, 'index.js'))
      expect(compilerEntry(server).href).toBe(server.href) // a build without it: the module itself
      fs.writeFileSync(path.join(dir, 'matcher-compiler.js'), '')
      expect(compilerEntry(server).href).toBe(pathToFileURL(path.join(dir, 'matcher-compiler.js')).href)
      const source = new URL('./compile-worker.ts', import.meta.url)
      expect(compilerEntry(source).href).toBe(source.href)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
