import { expect } from 'chai';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '#adapters/config/index.js';
import { catalogStreams } from '#adapters/messaging/provisioning.js';
import { catalog } from '#contracts/catalog.js';
import { renderKustomization, type K8sObject } from '#scripts/deploy/kustomize.js';
import { provisioningSchema } from '#validation/cli/provision-jetstream.js';
import { tenantSchema } from '#tenant/config.js';
import { validationSchema } from '#validation/config.js';

/**
 * JetStream streams are replicated on the production three-server NATS cluster (R3) and kept at one
 * copy on a single local server (R1): the services and the provisioning Job read the replica count
 * from NATS_STREAM_REPLICAS in their ConfigMap, and the NACK Stream resources say the same.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const render = (overlay: string) => renderKustomization(path.join(root, overlay));
const configMap = (objects: readonly K8sObject[], name: string) =>
  (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name) as unknown as { data: Record<string, string> }).data;
/** The settings a process gets from a ConfigMap (envFrom), loaded as the service would load them. */
const settingsFrom = (schema: Parameters<typeof loadConfig>[0], data: Record<string, string>) =>
  loadConfig(schema, Object.fromEntries(Object.entries(data).filter(([, v]) => v !== ''))) as { natsStreamReplicas: number };

describe('deploy: JetStream stream replicas (R3 in production, R1 in the base)', () => {
  const production = render('deploy/overlays/production');
  const base = render('deploy/base');

  it('production: the validation and tenant services and the provisioning Job ask for three replicas', () => {
    expect(settingsFrom(validationSchema, configMap(production, 'validation-config')).natsStreamReplicas).to.equal(3);
    expect(settingsFrom(tenantSchema, configMap(production, 'tenant-config')).natsStreamReplicas).to.equal(3);
    // The Job runs with the validation ConfigMap (envFrom) and reads the same setting.
    const job = production.find((o) => o.kind === 'Job' && o.metadata.name === 'jetstream-provisioning') as unknown as { spec: { template: { spec: { containers: { envFrom: unknown[] }[] } } } };
    expect(job.spec.template.spec.containers[0]!.envFrom).to.deep.equal([{ configMapRef: { name: 'validation-config' } }]);
    expect(settingsFrom(provisioningSchema, configMap(production, 'validation-config')).natsStreamReplicas).to.equal(3);
  });

  it('production: every NACK Stream, the dead-letter stream included, has three replicas, as the services provision them', () => {
    const streams = production.filter((o) => o.kind === 'Stream') as unknown as { spec: { name: string; replicas: number } }[];
    const provisioned = catalogStreams(catalog, { replicas: 3 });
    expect(streams.map((s) => s.spec.name).sort()).to.deep.equal(provisioned.map((d) => d.name).sort());
    for (const stream of streams) expect(stream.spec.replicas, stream.spec.name).to.equal(3);
  });

  it('base (a single NATS server): one copy of each stream', () => {
    expect(settingsFrom(validationSchema, configMap(base, 'validation-config')).natsStreamReplicas).to.equal(1);
    expect(settingsFrom(tenantSchema, configMap(base, 'tenant-config')).natsStreamReplicas).to.equal(1);
    expect(base.some((o) => o.kind === 'Stream'), 'the base has no NACK streams: the services provision them').to.equal(false);
  });
});
