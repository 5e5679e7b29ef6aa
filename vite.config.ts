import { vitePlugin as remix } from '@remix-run/dev'
import { build, defineConfig, type Plugin } from 'vite'

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true
  }
}

/**
 * The matcher compiler's thread gets a build of its own, `build/server/matcher-compiler.js` (the matching modules
 * only, ~20 KB): started from the whole server build, each thread loaded every module of the app, 0.9 s and
 * ~140 MB before its first compile; from this one, 35 ms and ~18 MB (issue 28). Built after the server build,
 * by Vite itself, with no configuration file (so none of these plugins run again).
 */
function matcherCompilerBuild(): Plugin {
  let serverBuild = false
  return {
    name: 'glossary-matcher-compiler',
    apply: 'build',
    configResolved(config) {
      serverBuild = Boolean(config.build.ssr)
    },
    async closeBundle() {
      if (!serverBuild) return
      await build({
        configFile: false,
        logLevel: 'warn',
        publicDir: false,
        build: {
          ssr: 'app/services/matching/compile-worker.ts',
          outDir: 'build/server',
          emptyOutDir: false,
          target: 'node20',
          rollupOptions: { output: { format: 'es', entryFileNames: 'matcher-compiler.js' } },
        },
        ssr: { noExternal: true },
      })
    },
  }
}

export default defineConfig({
  server: { port: 3000 },
  build: { target: 'es2022' },
  plugins: [
    matcherCompilerBuild(),
    remix({
      ignoredRouteFiles: ['**/*.test.*', '**/*.css'],
      serverModuleFormat: 'esm',
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
  ],
})
