/**
 * SSO benchmark: `npx tsx bench/sso.bench.ts [--runs N]`
 *
 * Starts a real OpenID provider (oidc-provider, tests/sso-provider.ts) on 127.0.0.1 and an in-memory database,
 * configures OIDC mode, then times N full sign-ins (default 50): GET /auth/sso/start → the provider's
 * authorization and login redirects → GET /auth/sso/callback (code exchange, ID-token verification against the
 * JWKS, account lookup, session). Prints p50/p90 and the share of time spent fetching the JWKS (cached, so
 * only the first sign-in fetches it), then the same with the key-set cache cleared before every sign-in, to
 * show what the cache saves. No thresholds: the figures go to docs/decisions/018-single-sign-on.md.
 */
import os from 'node:os'
import { parseConfig, setConfig } from '../app/lib/config.server.ts'
import { followToCallback, startTestProvider } from '../tests/sso-provider.ts'
import { benchEnv, percentile } from './support.ts'

const args = process.argv.slice(2)
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 50
const ORIGIN = 'http://localhost:3000'
const REDIRECT_URI = `${ORIGIN}/auth/sso/callback`

setConfig(parseConfig({ ...benchEnv(), GLOSSARY_DATA_DIR: os.tmpdir() }))
const { openBenchDatabase } = await import('./bench-db.ts')
const { userId } = await openBenchDatabase()
const { updateSso } = await import('../app/services/sso/settings.server.ts')
const { clearJwksCache, jwksFetches } = await import('../app/services/sso/jwks.server.ts')
const { loader: startLoader } = await import('../app/routes/auth.sso.start.tsx')
const { loader: callbackLoader } = await import('../app/routes/auth.sso.callback.tsx')

const accounts = Array.from({ length: RUNS * 2 + 10 }, (_, i) => ({
  email: `person${i}@corp.test`,
  name: `Person ${i}`,
  groups: ['staff'],
}))
const provider = await startTestProvider({ redirectUri: REDIRECT_URI, accounts })
await updateSso({
  input: {
    mode: 'oidc',
    issuer: provider.issuer,
    authorizationEndpoint: `${provider.issuer}/auth`,
    tokenEndpoint: `${provider.issuer}/token`,
    userinfoEndpoint: `${provider.issuer}/me`,
    jwksUri: `${provider.issuer}/jwks`,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
  },
  actor: { userId, label: 'bench@example.test', email: 'bench@example.test' },
  client: { ip: '127.0.0.1', userAgent: 'bench' },
  proxyEmail: null,
})

const context = { ip: '127.0.0.1', isHttps: false, requestId: 'bench', cspNonce: '' }
const request = (path: string, cookie?: string) =>
  new Request(`${ORIGIN}${path}`, { headers: { host: 'localhost:3000', ...(cookie ? { cookie } : {}) } })

async function signIn(email: string): Promise<number> {
  const started = performance.now()
  const start = (await startLoader({ request: request('/auth/sso/start'), context, params: {} })) as Response
  const location = new URL(start.headers.get('location')!)
  location.searchParams.set('login_hint', email)
  const flow = (start.headers.get('set-cookie') ?? '').split(';')[0]!
  const callback = new URL(await followToCallback(location.href, REDIRECT_URI))
  const done = (await callbackLoader({
    request: request(callback.pathname + callback.search, flow),
    context,
    params: {},
  })) as Response
  if (done.headers.get('location') !== '/') throw new Error(`sign-in failed: ${done.headers.get('location')}`)
  return performance.now() - started
}

await signIn(accounts[RUNS * 2]!.email) // warm-up (module loading, first provider keys)

async function series(label: string, offset: number, coldKeys: boolean) {
  clearJwksCache()
  jwksFetches.count = 0
  jwksFetches.ms = 0
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    if (coldKeys) clearJwksCache()
    times.push(await signIn(accounts[offset + i]!.email))
  }
  const total = times.reduce((a, b) => a + b, 0)
  console.log(
    `${label.padEnd(26)} runs ${RUNS}  p50 ${percentile(times, 50).toFixed(1)} ms  p90 ${percentile(times, 90).toFixed(1)} ms  ` +
      `JWKS fetches ${jwksFetches.count} (${jwksFetches.ms.toFixed(1)} ms, ${((100 * jwksFetches.ms) / total).toFixed(1)}% of the time)`,
  )
}

console.log(`Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)}`)
await series('first sign-ins, cached keys', 0, false)
await series('first sign-ins, no key cache', RUNS, true)
await provider.close()
process.exit(0)
