import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', '**/*.cjs', 'eslint.config.js', '.cache/**', 'test-artifacts/**'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The hexagon's rule: domain code never imports an adapter.
    files: ['services/*/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/adapters/**', '../adapters/*', '../../adapters/*'], message: 'Domain code must not import adapters; depend on a port instead.' },
        { group: ['express', 'pg', '@mikro-orm/*', '@nats-io/*', 'keyv', '@keyv/*'], message: 'Domain code must not import infrastructure libraries.' },
      ] }],
    },
  },
);
