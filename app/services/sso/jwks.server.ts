import { createRemoteJWKSet, customFetch, jwtVerify, type JWTPayload } from 'jose'
import { boundedFetch, OUTBOUND_LIMITS } from '#app/lib/outbound.server.ts'

/**
 * ID-token signatures are checked against the configured `jwksUri` (decision 018): one cached key set per
 * address (jose: kept 10 minutes, refetched at once when a token names an unknown `kid`, at most every 30 s).
 * `jwksFetches` counts the fetches and their time, for the benchmark.
 */

const sets = new Map<string, ReturnType<typeof createRemoteJWKSet>>()

export const jwksFetches = { count: 0, ms: 0 }

function keySet(jwksUri: string): ReturnType<typeof createRemoteJWKSet> {
  let set = sets.get(jwksUri)
  if (!set) {
    set = createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: OUTBOUND_LIMITS.timeoutMs,
      [customFetch]: async (url, options) => {
        const started = performance.now()
        try {
          return await boundedFetch(url, options)
        } finally {
          jwksFetches.count++
          jwksFetches.ms += performance.now() - started
        }
      },
    })
    if (sets.size > 20) sets.clear()
    sets.set(jwksUri, set)
  }
  return set
}

/** Verifies an ID token's signature, issuer, audience and expiry; throws when any fails. */
export async function verifyIdToken(
  idToken: string,
  options: { jwksUri: string; issuer: string; audience: string },
): Promise<JWTPayload> {
  const { payload } = await jwtVerify(idToken, keySet(options.jwksUri), {
    issuer: options.issuer,
    audience: options.audience,
    clockTolerance: 30,
  })
  return payload
}

/** Forgets every cached key set (tests). */
export function clearJwksCache(): void {
  sets.clear()
}
