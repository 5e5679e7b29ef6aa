/**
 * The import rules of the project (docs/architecture.md), checked by `npm run lint:deps` (part of `npm test`).
 * ESLint's no-restricted-imports gives the same directions in the editor; this adds what a per-file linter
 * cannot see: cycles across files, type-only imports included.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment:
        'No import cycle between files, type-only imports included: shared vocabulary goes to domain/.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'db-not-app',
      severity: 'error',
      comment: 'db/ never imports app/: its caller passes configuration and a logger.',
      from: { path: '^db/' },
      to: { path: '^app/' },
    },
    {
      name: 'domain-is-a-leaf',
      severity: 'error',
      comment: 'domain/ holds the vocabulary every layer imports; it imports nothing outside itself.',
      from: { path: '^domain/' },
      to: { pathNot: '^domain/' },
    },
    {
      name: 'services-speak-data',
      severity: 'error',
      comment: 'Services never import routes, components, page helpers or the HTTP API layer.',
      from: { path: '^(app/services|pipeline|sync)/' },
      to: { path: '^app/(routes|components|pages|api)/' },
    },
    {
      name: 'services-not-mcp',
      severity: 'error',
      comment: 'Services never import the MCP server (app/mcp/): it calls them, as the API does.',
      from: { path: '^(app/services|pipeline|sync)/' },
      to: { path: '^app/mcp/' },
    },
    {
      name: 'mcp-calls-services',
      severity: 'error',
      comment:
        'app/mcp/ wraps services for agents: it never imports routes, components, page helpers, the REST layer or the web process.',
      from: { path: '^app/mcp/' },
      to: { path: '^app/(routes|components|pages|api|server)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|build|tests/\\.tmp)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
}
