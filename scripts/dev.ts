// `npm run dev`: the Express app with the Vite dev server (hot reload). Pages and API come from Vite's module
// graph, so an edit applies without restart. Uses the same config and database as `glossary start`.
import type { ServerBuild } from '@remix-run/node'
import { createServer } from 'vite'
import type * as Runtime from '../app/server/runtime.server.ts'

const vite = await createServer({ server: { middlewareMode: true }, appType: 'custom' })
const load = () => vite.ssrLoadModule('virtual:remix/server-build') as Promise<ServerBuild>
const build = await load()
const { runtime } = build.entry.module as unknown as { runtime: typeof Runtime }
runtime.loadConfig()
await runtime.dev({ build: load, before: [vite.middlewares] })
