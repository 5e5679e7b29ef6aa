import { Redis } from 'ioredis'
import { getConfig } from '#app/lib/config.server.ts'
import { log } from '#app/lib/logger.server.ts'

/**
 * The queue transport. With REDIS_URL the pipeline runs as BullMQ workers over Redis; without it the same stage
 * functions run in-process on the durable `rag_index_queue` table (design.md §4). This module owns the one
 * Redis connection of the process.
 */
let connection: Redis | undefined

export function isRedisTransport(): boolean {
  return Boolean(getConfig().redisUrl)
}

/** The shared connection; BullMQ needs `maxRetriesPerRequest: null` so blocking commands are never cut off. */
export function redis(): Redis {
  const url = getConfig().redisUrl
  if (!url) throw new Error('REDIS_URL is not set')
  if (!connection) {
    connection = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, enableOfflineQueue: true })
    // Without a listener ioredis prints every reconnect failure to the console; log it once per error instead.
    connection.on('error', (err) => log().warn({ err: { message: err.message } }, 'redis connection error'))
  }
  return connection
}

/** True when Redis answers PING within a second. */
export async function pingQueue(): Promise<boolean> {
  if (!getConfig().redisUrl) return true
  try {
    const client = redis()
    if (client.status === 'wait') await client.connect()
    const answer = await Promise.race([
      client.ping(),
      new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 1000).unref()),
    ])
    return answer === 'PONG'
  } catch {
    return false
  }
}

export async function closeQueue(): Promise<void> {
  const client = connection
  connection = undefined
  if (client && client.status !== 'end') await client.quit().catch(() => client.disconnect())
}
