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
  {
    files: ['app/services/**', 'db/**', 'pipeline/**', 'sync/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@remix-run/*'], message: 'Domain code must not depend on Remix.' }] },
      ],
    },
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
