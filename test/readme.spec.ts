import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describeConfig } from '#adapters/config/index.js';
import { catalog } from '#contracts/catalog.js';
import { GENERATED_DOCUMENTS, renderDocument } from '#scripts/docs/readme-tables.js';
import { gatewaySchema } from '#gateway/config.js';
import { validationSchema } from '#validation/config.js';
import { tenantServiceSchema } from '#tenant/service-schema.js';
import { USAGE as PUBLISH_READY_USAGE } from '#validation/cli/publish-ready-for-validation.js';
import { USAGE as VALIDATE_USAGE } from '#validation/cli/validate.js';
import { projectRoot } from '#test-support/shared-dir.js';

const read = (file: string) => readFileSync(path.join(projectRoot, file), 'utf8');
const readme = read('README.md');

describe('README and the reference documents', () => {
  it('have their generated reference tables up to date (run npx tsx scripts/docs/readme-tables.ts)', () => {
    for (const document of Object.keys(GENERATED_DOCUMENTS)) {
      const text = read(document);
      expect(renderDocument(document, text) === text, `${document} is stale`).to.equal(true);
    }
  });

  it('document every configuration property with its environment variable (docs/configuration.md)', () => {
    const configuration = read('docs/configuration.md');
    for (const schema of [validationSchema, tenantServiceSchema, gatewaySchema]) {
      for (const row of describeConfig(schema as Parameters<typeof describeConfig>[0])) {
        expect(configuration, row.property).to.contain(`\`${row.envVar}\``);
      }
    }
  });

  it('list every message of the catalog with its subject (docs/api.md)', () => {
    const api = read('docs/api.md');
    for (const message of catalog.messages) expect(api, message.name).to.contain(`\`${message.subject}\``);
  });

  it('link only documents that exist, and the README never sends a user to ../shared', () => {
    for (const [, target] of readme.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)) expect(existsSync(path.join(projectRoot, target!)), target).to.equal(true);
    expect(readme).not.to.match(/\.\.\/shared|SHARED_DIR/);
  });

  it('keeps exactly two set-up commands: start the services, run the tests', () => {
    const from = readme.indexOf('## Set-up on a fresh machine');
    const setup = readme.slice(from, readme.indexOf('\n## ', from + 1));
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
