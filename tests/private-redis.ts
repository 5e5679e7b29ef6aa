import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

/**
 * A redis-server of a test's own on a free loopback port (the production-shape cluster, and the integration
 * tests of the BullMQ transport), so that it can be killed and started again, losing every job, without
 * touching the machine's shared Redis.
 */

/** A free loopback port (the CLI derives its default allowed origins from PORT, so 0 will not do). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

export interface PrivateRedis {
  port: number
  url: string
  /** Starts redis-server on `port` (again) and waits until it answers PING. */
  start(): Promise<void>
  /** SIGKILL: nothing is saved, so a later start begins empty. */
  stop(): Promise<void>
  /** Kill and start again on the same port: every job and lock is lost. */
  restart(): Promise<void>
}

/** Servers still running, killed should the test process end without its teardown. */
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** Whether something on 127.0.0.1:`port` answers a Redis PING. */
function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
    socket.setTimeout(1000, () => socket.destroy())
    socket.once('data', (data) => {
      socket.end()
      resolve(data.toString().startsWith('+PONG'))
    })
    socket.once('error', () => resolve(false))
    socket.once('close', () => resolve(false))
  })
}

/** A redis-server without persistence, its files in `dir` (a new temporary folder by default), answering. */
export async function startPrivateRedis(
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-redis-')),
): Promise<PrivateRedis> {
  const port = await freePort()
  fs.mkdirSync(dir, { recursive: true })
  let child: ChildProcess | undefined
  let output = ''
  const redis: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
      const started = spawn('redis-server', [...args, '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
      child = started
      running.add(started)
      started.once('exit', () => running.delete(started))
      started.stdout!.on('data', (d) => (output += d))
      started.stderr!.on('data', (d) => (output += d))
      const deadline = Date.now() + 10_000
      while (!(await redisAnswers(port))) {
        if (started.exitCode !== null) throw new Error(`redis-server exited:\n${output}`)
        if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer in 10 s`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    async stop() {
      const stopping = child
      child = undefined
      if (!stopping || stopping.exitCode !== null || stopping.signalCode !== null) return
      await new Promise<void>((resolve) => {
        stopping.once('exit', () => resolve())
        stopping.kill('SIGKILL')
      })
    },
    async restart() {
      await redis.stop()
      await redis.start()
    },
  }
  await redis.start()
  return redis
}
