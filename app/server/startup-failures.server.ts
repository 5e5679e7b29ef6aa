import { Redis } from 'ioredis'
import { getConfig } from '#app/lib/config.server.ts'

/**
 * What stops a command at launch, as the operator sees it: one line naming what is wrong and what to do, never a
 * stack trace, for the failures the operator fixes (PostgreSQL or Redis unreachable, a login refused, a missing
 * database or extension, a port in use). `glossary` (bin/glossary.js) prints `operatorMessage` of a failure when
 * there is one, and the stack otherwise (a fault of the program).
 */

/**
 * A failure of the operator's situation (a server that cannot be reached, a login refused, a port in use), not
 * a fault of the program: its message says what is wrong and what to do, and `glossary` prints it alone.
 */
export class StartupError extends Error {
  override name = 'StartupError'
}

/** Errors whose message is the whole story (thrown here, by db/migrator.ts and by db/orm.ts). */
const OPERATOR_FAILURES = new Set([
  'StartupError',
  'PendingMigrationsError',
  'ReleaseMismatchError',
  'MissingExtensionsError',
  'MigrationFailedError',
  'DataDirInUseError',
])

/**
 * The one place that decides how a failed command ends: the line `glossary` prints for a failure the operator
 * fixes, or undefined for a fault of the program (then the stack trace is what helps).
 */
export function operatorMessage(error: unknown): string | undefined {
  return error instanceof Error && OPERATOR_FAILURES.has(error.name) ? error.message : undefined
}

/**
 * `glossary sync` on an embedded database a running service holds (PGlite is one process's): the running
 * service does the same on its admin screen, so that is the way out, rather than stopping it.
 */
export function syncDataDirHeld(dataPath: string): StartupError {
  return new StartupError(
    `The embedded database in ${dataPath} is held by a running glossary service (\`glossary start\`): ` +
      'export and import bundles on its admin screen, /admin/sync, or stop it and run `glossary sync` again.',
  )
}

/** Where DATABASE_URL points, without its password. */
function databaseAddress(databaseUrl: string): { server: string; database: string; role: string } {
  const url = new URL(databaseUrl)
  return {
    server: `${url.hostname}:${url.port || 5432}`,
    database: decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username),
    role: decodeURIComponent(url.username) || 'postgres',
  }
}

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the server running there?)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the network',
  ECONNRESET: 'the server closed the connection',
}

function errorCode(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? code : undefined
}

/** The PostgreSQL failures of opening the database that the operator fixes, as one line each. */
export function databaseFailure(error: unknown, databaseUrl: string): StartupError | undefined {
  const { server, database, role } = databaseAddress(databaseUrl)
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = errorCode(cause) ?? ''
    if (code in UNREACHABLE) {
      return new StartupError(`Cannot reach PostgreSQL at ${server} (DATABASE_URL): ${UNREACHABLE[code]}.`)
    }
    if (code.startsWith('28')) {
      return new StartupError(
        `PostgreSQL at ${server} refused the login of role "${role}" (DATABASE_URL): ${cause.message}. ` +
          'Check the user and password in DATABASE_URL.',
      )
    }
    // MikroORM creates a database that does not exist; an ordinary role may not (42501), nor should it need to.
    if (code === '3D000' || (code === '42501' && /^create database /i.test(cause.message))) {
      return new StartupError(
        `PostgreSQL at ${server} has no database "${database}" (DATABASE_URL): a superuser must create it, ` +
          `once: create database "${database}" owner "${role}"; (README, "Production: PostgreSQL + Redis").`,
      )
    }
    if (code === '57P03' || code === '53300') {
      return new StartupError(
        `PostgreSQL at ${server} accepts no connection now (DATABASE_URL): ${cause.message}.`,
      )
    }
  }
  return undefined
}

/**
 * With REDIS_URL, web, worker and start need Redis from their first moment: a short-lived connection that
 * tries once, so an unreachable Redis stops the command with its reason instead of a retry loop in the log.
 */
export async function assertQueueReachable(): Promise<void> {
  const redisUrl = getConfig().redisUrl
  if (!redisUrl) return
  const url = new URL(redisUrl)
  const where = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 5000,
  })
  let reason: Error | undefined
  client.on('error', (error: Error) => (reason ??= error))
  try {
    await client.connect()
    await client.ping()
  } catch (error) {
    const cause = reason ?? (error as Error)
    const code = errorCode(cause)
    const why = code && code in UNREACHABLE ? UNREACHABLE[code] : cause.message
    throw new StartupError(`Cannot reach Redis at ${where} (REDIS_URL): ${why}.`)
  } finally {
    client.disconnect()
  }
}

/** What `listen` failing means for whoever set HOST and PORT. */
export function listenFailure(error: unknown, host: string, port: number): Error {
  const code = error instanceof Error ? errorCode(error) : undefined
  const why: Record<string, string> = {
    EADDRINUSE: 'the port is in use by another process (set PORT)',
    EACCES: 'permission denied (a port below 1024 needs privileges; set PORT)',
    EADDRNOTAVAIL: 'HOST is not an address of this machine (set HOST)',
    ENOTFOUND: 'HOST is not a known host name (set HOST)',
    EAI_AGAIN: 'HOST could not be resolved (set HOST)',
  }
  return code && code in why
    ? new StartupError(`Cannot listen on ${hostAndPort(host, port)}: ${why[code]}.`)
    : (error as Error)
}

export function hostAndPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`
}
