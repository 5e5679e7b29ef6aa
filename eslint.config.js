import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['build/**', 'node_modules/**', 'data/**', 'tests/.tmp/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        document: 'readonly',
        window: 'readonly',
        navigator: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // One config module reads the environment (house style §4).
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through app/lib/config.server.ts, not process.env.',
        },
      ],
    },
  },
  // The directions of the layers (docs/architecture.md). A later block's `no-restricted-imports` replaces an
  // earlier one for the same files, so each block lists every pattern its files must avoid. A leading `#` is
  // escaped: these are gitignore-style patterns, where `#` starts a comment.
  {
    files: ['app/services/**', 'pipeline/**', 'sync/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@remix-run/*'], message: 'Services speak data: no Remix here.' },
            {
              group: [
                '\\#app/routes/*',
                '\\#app/components/*',
                '\\#app/pages/*',
                '\\#app/api/*',
                '**/routes/*',
                '**/components/*',
                '**/pages/*',
                '**/api/*',
              ],
              message:
                'Services speak data: they never import routes, components, page helpers or the HTTP API layer.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['db/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@remix-run/*'], message: 'db/ must not depend on Remix.' },
            {
              group: ['\\#app/*', '**/app/*'],
              message: 'db/ never imports app/: its caller passes what it needs.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // A regex, not a gitignore-style group: `!./*` never matched `./ids.ts`, so domain/ files could
              // not import each other.
              regex: '^(?!\\./[^/]+$)',
              message: 'domain/ is the dependency-free vocabulary: it imports nothing but its own files.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tool configuration files that their tools load as CommonJS (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The config module, the CLI shim, test harnesses, benchmarks and scripts may read the environment.
    files: [
      'app/lib/config.server.ts',
      'bin/**',
      'tests/**',
      'bench/**',
      'scripts/**',
      '**/*.test.ts',
      '*.config.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
)
