declare module '@remix-run/node' {
  interface AppLoadContext {
    cspNonce?: string
    requestId?: string
    /** Client address (X-Forwarded-For only when the proxy is trusted). */
    ip?: string
    /** Whether the request arrived over HTTPS (X-Forwarded-Proto only when trusted). */
    isHttps?: boolean
    /**
     * Set by `handleError` (entry.server.tsx) when a loader failed because the database connection was lost;
     * the page handler (app/server/http.server.ts) then answers a GET again, once.
     */
    databaseLost?: boolean
  }
}

export {}
