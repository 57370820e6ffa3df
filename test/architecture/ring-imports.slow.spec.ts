/**
 * The rings are enforced by lint, not by review: these feed deliberately wrong imports to the
 * project's ESLint configuration, as if written in each ring, and expect them refused (and right
 * ones accepted), so a loosened rule fails here.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = path.resolve(import.meta.dirname, '../..');

// The ring rules need no type information; the probes are not files of the TypeScript project.
let eslintInstance: ESLint | undefined;

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const eslint = eslintInstance ??= new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      // every other typescript-eslint rule off (the ratchet's type-aware ones cannot run without types);
      // the ring rules are ESLint's and typescript-eslint's no-restricted-imports, which stay on
      rules: Object.fromEntries(tseslint.configs.strictTypeChecked.flatMap((c) => Object.keys(c.rules ?? {}))
        .filter((rule) => rule !== '@typescript-eslint/no-restricted-imports')
        .concat(['@typescript-eslint/no-non-null-assertion', '@typescript-eslint/consistent-type-assertions', '@typescript-eslint/switch-exhaustiveness-check', 'max-lines'])
        .map((rule) => [rule, 'off'])),
    },
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  const fatal = (result?.messages ?? []).filter((m) => m.fatal);
  if (fatal.length > 0) throw new Error(`lint could not read the probe: ${fatal.map((m) => m.message).join('; ')}`);
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === '@typescript-eslint/no-restricted-imports')
    .map((m) => m.message);
}

describe('architecture: ring imports are enforced by lint', function () {
  this.timeout(60_000);

  const cases: Array<{ ring: string; file: string; code: string }> = [
    { ring: 'validation domain → adapter', file: 'services/validation/src/domain/results/probe.ts', code: "import { x } from '../../adapters/persistence/result-repository.js';\nexport const y = x;\n" },
    { ring: 'tenant domain → MikroORM', file: 'services/tenant/src/domain/probe.ts', code: "import { MikroORM } from '@mikro-orm/postgresql';\nexport const y = MikroORM;\n" },
    { ring: 'signing-keys domain → adapter', file: 'services/tenant/src/signing-keys/domain/probe.ts', code: "import { x } from '../adapters/persistence.js';\nexport const y = x;\n" },
    { ring: 'tenant application → express', file: 'services/tenant/src/application/probe.ts', code: "import express from 'express';\nexport const y = express;\n" },
    { ring: 'tenant application → its adapters', file: 'services/tenant/src/application/probe.ts', code: "import { x } from '../adapters/persistence/facility-repository.js';\nexport const y = x;\n" },
    { ring: 'signing-keys application → adapter', file: 'services/tenant/src/signing-keys/application/probe.ts', code: "import { x } from '../adapters/config.js';\nexport const y = x;\n" },
    { ring: 'tenant application → NATS', file: 'services/tenant/src/application/probe.ts', code: "import { connect } from '@nats-io/transport-node';\nexport const y = connect;\n" },
    { ring: 'validation application → its persistence adapter', file: 'services/validation/src/application/validation-flow/probe.ts', code: "import { x } from '../../adapters/persistence/result-repository.js';\nexport const y = x;\n" },
    { ring: 'validation application → the engine host adapter', file: 'services/validation/src/application/probe.ts', code: "import { x } from '../adapters/engine/engine-host.js';\nexport const y = x;\n" },
    { ring: 'validation application → kysely', file: 'services/validation/src/application/probe.ts', code: "import { sql } from 'kysely';\nexport const y = sql;\n" },
    { ring: 'shared kernel → express', file: 'services/shared-kernel/src/domain/probe.ts', code: "import express from 'express';\nexport const y = express;\n" },
    { ring: 'shared kernel → a shared adapter', file: 'services/shared-kernel/src/domain/probe.ts', code: "import { HttpProblem } from '../../../../adapters/http/problem.js';\nexport const y = HttpProblem;\n" },
    { ring: 'shared kernel → a service by its alias', file: 'services/shared-kernel/src/domain/probe.ts', code: "import { x } from '#validation/domain/ports/submission-source.js';\nexport const y = x;\n" },
    { ring: 'shared kernel → a service', file: 'services/shared-kernel/src/domain/probe.ts', code: "import { x } from '../../../validation/src/domain/ports/submission-source.js';\nexport const y = x;\n" },
    { ring: 'validation domain → a shared adapter by its #adapters alias', file: 'services/validation/src/domain/results/probe.ts', code: "import { x } from '#adapters/persistence/index.js';\nexport const y = x;\n" },
    { ring: 'validation domain → its own adapters by the #validation alias', file: 'services/validation/src/domain/results/probe.ts', code: "import { x } from '#validation/adapters/persistence/result-repository.js';\nexport const y = x;\n" },
    { ring: 'tenant application → its adapters by the #tenant alias', file: 'services/tenant/src/application/probe.ts', code: "import { x } from '#tenant/adapters/persistence/facility-repository.js';\nexport const y = x;\n" },
    { ring: 'signing-keys application → its adapters by the #tenant alias', file: 'services/tenant/src/signing-keys/application/probe.ts', code: "import { x } from '#tenant/signing-keys/adapters/config.js';\nexport const y = x;\n" },
    { ring: 'tenant application → a shared adapter value by its alias', file: 'services/tenant/src/application/probe.ts', code: "import { createLogger } from '#adapters/observability/logger.js';\nexport const y = createLogger;\n" },
    { ring: 'tenant application → a shared adapter value', file: 'services/tenant/src/application/probe.ts', code: "import { createLogger } from '../../../../adapters/observability/logger.js';\nexport const y = createLogger;\n" },
  ];

  for (const { ring, file, code } of cases) {
    it(`refuses ${ring}`, async () => {
      expect(await restrictedImports(file, code)).to.have.length.greaterThan(0);
    });
  }

  it('accepts a domain import of the shared kernel', async () => {
    expect(await restrictedImports('services/validation/src/domain/flow/probe.ts',
      "import { NotFoundError } from '../../../../shared-kernel/src/domain/errors.js';\nexport const y = NotFoundError;\n")).to.deep.equal([]);
  });

  it('accepts an application import of its domain and of its Logger port', async () => {
    expect(await restrictedImports('services/tenant/src/signing-keys/application/probe.ts',
      "import type { SigningKeyStore } from '../domain/ports/signing-key-store.js';\nimport type { Logger } from '../../domain/ports/logger.js';\nexport type Y = SigningKeyStore | Logger;\n")).to.deep.equal([]);
    expect(await restrictedImports('services/tenant/src/application/probe.ts',
      "import type { Facility } from '#tenant/domain/facility.js';\nimport type { Logger } from '#tenant/domain/ports/logger.js';\nexport type Y = Facility | Logger;\n")).to.deep.equal([]);
  });

  it('refuses an application type import of the shared observability adapter (its Logger port stands for it)', async () => {
    expect(await restrictedImports('services/tenant/src/application/probe.ts',
      "import type { Logger } from '#adapters/observability/logger.js';\nexport type Y = Logger;\n")).to.have.length.greaterThan(0);
    expect(await restrictedImports('services/tenant/src/signing-keys/application/probe.ts',
      "import type { Logger } from '../../../../../adapters/observability/logger.js';\nexport type Y = Logger;\n")).to.have.length.greaterThan(0);
});
});
