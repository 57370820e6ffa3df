import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describeConfig } from '#adapters/config/index.js';
import { catalog } from '#contracts/catalog.js';
import { renderReadme } from '#scripts/docs/readme-tables.js';
import { gatewaySchema } from '#gateway/config.js';
import { validationSchema } from '#validation/config.js';
import { tenantServiceSchema } from '#tenant/service-schema.js';
import { USAGE as PUBLISH_READY_USAGE } from '#validation/cli/publish-ready-for-validation.js';
import { USAGE as VALIDATE_USAGE } from '#validation/cli/validate.js';
import { projectRoot } from '#test-support/shared-dir.js';

const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');

describe('README', () => {
  it('has its generated reference tables up to date (run npx tsx scripts/docs/readme-tables.ts)', () => {
    expect(renderReadme(readme) === readme, 'README.md is stale').to.equal(true);
  });

  it('documents every configuration property with its environment variable', () => {
    for (const schema of [validationSchema, tenantServiceSchema, gatewaySchema]) {
      for (const row of describeConfig(schema as Parameters<typeof describeConfig>[0])) {
        expect(readme, row.property).to.contain(`\`${row.envVar}\``);
      }
    }
  });

  it('lists every message of the catalog with its subject', () => {
    for (const message of catalog.messages) expect(readme, message.name).to.contain(`\`${message.subject}\``);
  });

  it('keeps exactly two set-up commands: start the services, run the tests', () => {
    const setup = readme.slice(readme.indexOf('## Set-up on a fresh machine'), readme.indexOf('## Architecture'));
    const blocks = [...setup.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => (m[1] ?? '').trim());
    expect(blocks).to.deep.equal(['npm ci --loglevel=error && AUTH_MODE=none npm start', 'npm test']);
  });

  it('quotes each command-line tool\'s usage text exactly as the tool prints it', () => {
    for (const usage of [VALIDATE_USAGE, PUBLISH_READY_USAGE]) {
      for (const line of usage.split('\n')) {
        const synopsis = line.trim().replace(/^usage: /, '');
        expect(readme, synopsis).to.contain(`\`${synopsis}\``);
      }
    }
  });
});
