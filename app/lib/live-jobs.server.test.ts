import { describe, expect, it } from 'vitest'
import { LiveJobs } from './live-jobs.server.ts'

interface Job {
  id: string
  step: number
  status: 'running' | 'done'
}

/** A job whose steps the test releases one at a time. */
function steppedJob(jobs: LiveJobs<Job>, steps: number) {
  const job: Job = { id: 'j1', step: 0, status: 'running' }
  let release: () => void = () => {}
  const done = jobs.run(job, async (changed) => {
    for (let i = 1; i <= steps; i++) {
      await new Promise<void>((resolve) => (release = resolve))
      job.step = i
      await changed()
    }
    return 'result'
  })
  return { job, done, next: () => release() }
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('LiveJobs', () => {
  it('streams each state as the job advances, then the final state read once it has finished', async () => {
    const jobs = new LiveJobs<Job>()
    const { done, next } = steppedJob(jobs, 3)
    const seen: Job[] = []
    const watching = (async () => {
      for await (const state of jobs.watch('j1', async () => ({ id: 'j1', step: 3, status: 'done' }))) {
        seen.push(state)
        // Advance only after each state was read, so every step is seen.
        setImmediate(next)
      }
    })()
    expect(await done).toBe('result')
    await watching
    expect(seen.map((s) => s.step)).toEqual([0, 1, 2, 3, 3])
    expect(seen.at(-1)!.status).toBe('done')
    expect(jobs.snapshot('j1')).toBeUndefined()
  })

  it('folds changes a slow reader missed into one state, and a finished job is only its final state', async () => {
    const jobs = new LiveJobs<Job>()
    const { done, next } = steppedJob(jobs, 3)
    const iterator = jobs.watch('j1', async () => ({ id: 'j1', step: 3, status: 'done' }))
    expect((await iterator.next()).value).toMatchObject({ step: 0 })
    // Two steps happen before the reader asks again (each step also yields a turn of the event loop).
    next()
    await turns(2)
    next()
    await turns(2)
    expect((await iterator.next()).value).toMatchObject({ step: 2 })
    next()
    await done
    expect((await iterator.next()).value).toMatchObject({ status: 'done' })
    expect((await iterator.next()).done).toBe(true)
    const finished = []
    for await (const s of jobs.watch('j1', async () => ({ id: 'j1', step: 3, status: 'done' as const })))
      finished.push(s)
    expect(finished).toEqual([{ id: 'j1', step: 3, status: 'done' }])
  })

  it('snapshots are copies (a reader cannot change the running job)', () => {
    const jobs = new LiveJobs<Job>()
    const { job, next } = steppedJob(jobs, 1)
    const copy = jobs.snapshot('j1')!
    copy.step = 99
    expect(job.step).toBe(0)
    next()
  })
})
