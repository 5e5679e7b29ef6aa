declare module '@remix-run/node' {
  interface AppLoadContext {
    cspNonce?: string
    requestId?: string
    /** Client address (X-Forwarded-For only when the proxy is trusted). */
    ip?: string
    /** Whether the request arrived over HTTPS (X-Forwarded-Proto only when trusted). */
    isHttps?: boolean
  }
}

export {}
