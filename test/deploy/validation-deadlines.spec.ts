/**
 * The validation deadlines of every overlay hold together as the service checks them at start-up
 * (checkValidationSettings): a pod with values that do not would stop with exit code 78.
 */
import { expect } from 'chai';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '#adapters/config/index.js';
import { renderKustomization } from '#scripts/deploy/kustomize.js';
import { checkValidationSettings, validationSchema } from '#validation/config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('deploy: validation deadlines', () => {
  for (const overlay of ['base', 'overlays/production']) {
    it(`${overlay}: the resource, submission and stall budgets are consistent (terminology server or not)`, () => {
      const objects = renderKustomization(path.join(root, 'deploy', overlay));
      const data = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'validation-config')!.data as Record<string, string>;
      const config = loadConfig(validationSchema, data);
      expect(() => checkValidationSettings(config)).to.not.throw();
      // The same values with a terminology server configured (the ConfigMaps leave it empty).
      expect(() => checkValidationSettings({ ...config, fhirTerminologyServiceUrl: 'https://tx.example.org/fhir' })).to.not.throw();
      expect(config.validationStallTimeoutMs).to.be.at.least(2 * config.validationResourceTimeoutMs);
    });
  }
});
