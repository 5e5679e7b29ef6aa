import crypto from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import net from 'node:net'
import { getConfig, type Config } from '#app/lib/config.server.ts'
import { AppError, toErrorResponse } from '#app/lib/errors.server.ts'
import { registry, useScrapeReaders, type ScrapeReaders } from '#app/lib/metrics.server.ts'
import { liveWorkers } from '#app/services/index-queue/health.server.ts'
import { countReadyRows, queueHealth } from '#app/services/index-queue/store.server.ts'
import { em, getDb } from '#db/orm.ts'
import { clientAddressReader, type ClientAddress } from './client-address.server.ts'
import { sendFetchResponse } from './fetch-bridge.server.ts'

/**
 * `GET /metrics` (Prometheus text format, the registry of app/lib/metrics.server.ts), served by the web
 * (http.server.ts) and by `glossary worker` on GLOSSARY_WORKER_METRICS_PORT (worker-metrics.server.ts), under
 * one access rule: the caller's address (the trusted-proxy rule of client-address.server.ts) is in
 * GLOSSARY_METRICS_ALLOW, or it sends `Authorization: Bearer <GLOSSARY_METRICS_TOKEN>`.
 */

/** Whether a caller may read the metrics: null when it may, else the error it is answered with. */
export type MetricsAccess = (req: IncomingMessage) => AppError | null

/** The access rule of `config.metrics`: allowed addresses, or the bearer token (compared in constant time). */
export function metricsAccess(
  config: Pick<Config, 'metrics' | 'trustProxyHeaders'>,
  clientOf: (req: IncomingMessage) => ClientAddress = clientAddressReader(config.trustProxyHeaders),
): MetricsAccess {
  const allowed = addressBlockList(config.metrics.allow)
  // Both sides are hashed first, so the comparison takes the same time whatever the presented token's length.
  const tokenDigest = config.metrics.token === undefined ? undefined : sha256(config.metrics.token)
  return (req) => {
    const header = req.headers.authorization
    if (header !== undefined) {
      const presented = BEARER.exec(header)?.[1]
      if (presented !== undefined && tokenDigest && crypto.timingSafeEqual(sha256(presented), tokenDigest)) {
        return null
      }
    }
    if (isAllowed(allowed, clientOf(req).ip)) return null
    // Never the token, not even a part of it, in the message or the log.
    return header !== undefined
      ? new AppError('unauthorized', 'The metrics token is missing, malformed or wrong.', {
          headers: { 'WWW-Authenticate': 'Bearer', ...NO_STORE },
        })
      : new AppError('forbidden', 'Metrics are not open to this address; send the metrics bearer token.', {
          headers: NO_STORE,
        })
  }
}

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i
const NO_STORE = { 'Cache-Control': 'no-store' }

function sha256(text: string): Buffer {
  return crypto.createHash('sha256').update(text, 'utf8').digest()
}

/** GLOSSARY_METRICS_ALLOW (already checked by the configuration) as Node's address list. */
function addressBlockList(entries: readonly string[]): net.BlockList {
  const list = new net.BlockList()
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/')
    const type = net.isIPv4(address) ? 'ipv4' : 'ipv6'
    if (prefix === undefined) list.addAddress(address, type)
    else list.addSubnet(address, Number(prefix), type)
  }
  return list
}

function isAllowed(list: net.BlockList, ip: string): boolean {
  // A dual-stack socket reports an IPv4 client as `::ffff:a.b.c.d`: it is checked as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1]
  if (mapped) return list.check(mapped, 'ipv4')
  if (net.isIPv4(ip)) return list.check(ip, 'ipv4')
  if (net.isIPv6(ip)) return list.check(ip, 'ipv6')
  return false
}

/**
 * The `/metrics` answer for a process: the access rule of the current configuration, then the registry's text.
 * Installs the database readers of the scrape-time gauges (queue rows, workers, connections) on first use.
 */
export function metricsHandler(
  clientOf?: (req: IncomingMessage) => ClientAddress,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const access = metricsAccess(getConfig(), clientOf)
  useScrapeReaders(DATABASE_READERS)
  return async (req, res) => {
    const refused = access(req)
    if (refused) {
      await sendFetchResponse(req, res, toErrorResponse(refused))
      return
    }
    const text = await registry.metrics()
    res.statusCode = 200
    res.setHeader('Content-Type', registry.contentType)
    res.setHeader('Cache-Control', 'no-store')
    res.end(req.method === 'HEAD' ? undefined : text)
  }
}

/** What the scrape-time gauges read: the index queue store and worker heartbeats, and the ORM's pool. */
const DATABASE_READERS: ScrapeReaders = {
  async queue() {
    const manager = em()
    // The health reading /readyz uses (queued, processing, failed, the oldest due row) and the ready rows.
    const [health, ready] = await Promise.all([queueHealth(manager), countReadyRows(manager)])
    return {
      rows: { queued: health.queued, processing: health.processing, ready, failed: health.failed },
      oldestDueSeconds: health.oldestDueSeconds,
    }
  },
  async workers() {
    const now = Date.now()
    // Ages from this process's clock against the database's: a small skew is clamped at zero.
    return (await liveWorkers()).map((w) => ({
      id: w.id,
      ageSeconds: Math.max(0, (now - Date.parse(w.lastSeenAt)) / 1000),
    }))
  },
  connections() {
    // MikroORM's knex pool (tarn): at most 10 connections on PostgreSQL, the one connection of the embedded
    // engine otherwise; and on PostgreSQL the pools with session settings of their own once opened (db/orm.ts
    // `settingsPool`: `search`, at most 4).
    const db = getDb()
    const pool = db.em.getConnection().getKnex().client.pool
    const orm = pool
      ? { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() }
      : { used: 0, free: 0, pending: 0 }
    return {
      orm,
      ...Object.fromEntries([...db.settingsPools].map(([name, settings]) => [name, settings.usage()])),
    }
  },
}
