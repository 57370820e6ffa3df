import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { buildCatalog, catalog, subjectMatches } from '#contracts/catalog.js';
import { dataOf, specOf, type WorkloadSpec } from '#scripts/deploy/k8s-model.js';
import { renderKustomization, type K8sObject } from '#scripts/deploy/kustomize.js';
import { validateSchemas } from '#scripts/deploy/manifest-checks.js';
import {
  NATS_ACCOUNTS_CONFIGMAP, NATS_ACCOUNTS_FILE, natsUsers, parseNatsAuthorization, passwordVariable, renderNatsAccountsYaml,
} from '#scripts/deploy/nats-accounts.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const committed = readFileSync(path.join(root, 'deploy/nats-accounts/accounts.yaml'), 'utf8');

/** The users as the NATS server will read them: from the committed manifest, not from the generator. */
function manifestUsers() {
  const objects = renderKustomization(path.join(root, 'deploy/nats-accounts'));
  const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === NATS_ACCOUNTS_CONFIGMAP);
  const text = configMap && dataOf(configMap).data?.[NATS_ACCOUNTS_FILE];
  if (text === undefined) throw new Error(`ConfigMap ${NATS_ACCOUNTS_CONFIGMAP} with ${NATS_ACCOUNTS_FILE} not rendered`);
  return parseNatsAuthorization(text);
}

/** Which users a permission list lets do something with `subject` (NATS wildcards `*`, `>`). */
function usersAllowed(kind: 'publish' | 'subscribe', subject: string): string[] {
  return manifestUsers().filter((user) => user.permissions[kind].allow.some((pattern) => subjectMatches(pattern, subject))).map((user) => user.user).sort();
}

describe('deploy: NATS users and subject permissions', () => {
  const subject = (name: string) => catalog.byName(name).subject;

  it('the committed deploy/nats-accounts/accounts.yaml equals the rendering (run `npx tsx scripts/render-manifests.ts` after a catalog change)', () => {
    expect(committed).to.equal(renderNatsAccountsYaml(catalog));
  });

  it('is a valid ConfigMap for the NATS server\'s namespace, with one password variable per user and nothing secret in it', async () => {
    const objects = renderKustomization(path.join(root, 'deploy/nats-accounts'));
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}/${object.metadata.namespace}`)).to.deep.equal(['ConfigMap/nats-accounts/messaging']);
    expect(await validateSchemas(objects)).to.deep.equal([]);
    for (const user of manifestUsers()) expect(user.password, user.user).to.equal(`$${passwordVariable(user.user)}`);
    expect(manifestUsers().map((user) => user.user)).to.deep.equal(natsUsers(catalog).map((user) => user.user));
  });

  it('only the tenant user may subscribe to SignClientAssertion (so no one else can answer it), and only data acquisition may ask it', () => {
    expect(usersAllowed('subscribe', subject('SignClientAssertion'))).to.deep.equal(['tenant']);
    expect(usersAllowed('publish', subject('SignClientAssertion'))).to.deep.equal(['data-acquisition']);
    for (const query of ['GetFacilitiesList', 'GetFacilityConfig', 'GetServiceInfo']) expect(usersAllowed('subscribe', subject(query)), query).to.deep.equal(['tenant']);
    expect(manifestUsers().filter((user) => user.permissions.allow_responses).map((user) => user.user)).to.deep.equal(['tenant', 'terminology-service']);
  });

  it('each event has its one producer (the operator may re-publish stored subjects to replay dead letters)', () => {
    expect(usersAllowed('publish', subject('ValidationComplete'))).to.deep.equal(['operator', 'validation']);
    expect(usersAllowed('publish', subject('ReadyForValidation'))).to.deep.equal(['operator', 'report-service']);
    for (const name of ['ReportScheduled', 'GenerateReportRequested', 'AuditableEventOccurred']) expect(usersAllowed('publish', subject(name)), name).to.deep.equal(['operator', 'tenant']);
    expect(usersAllowed('publish', subject('ResourceEvaluated'))).to.deep.equal(['measure-evaluation', 'operator']);
    // Only the consumer of a subject dead-letters it.
    expect(usersAllowed('publish', `${catalog.deadLetterPrefix}.${subject('ReadyForValidation')}`)).to.deep.equal(['operator', 'validation']);
  });

  it('replies and deliveries reach their own user only: each user subscribes to its own inbox, nobody to the shared _INBOX', () => {
    const users = manifestUsers().map((user) => user.user);
    for (const user of users) expect(usersAllowed('subscribe', `_INBOX_${user}.abc.1`), user).to.deep.equal([user]);
    expect(usersAllowed('subscribe', '_INBOX.abc.1')).to.deep.equal([]);
    expect(usersAllowed('subscribe', '>')).to.deep.equal([]);
  });

  it('JetStream API: only the provisioning Job\'s user manages streams and the validation consumer; services use theirs; only the operator deletes, purges or touches another\'s consumer', () => {
    const durable = 'validation-ready-for-validation';
    for (const action of ['CREATE', 'UPDATE', 'INFO']) {
      for (const stream of ['COMPLIANCE', 'REPORT', 'DEAD_LETTER']) expect(usersAllowed('publish', `$JS.API.STREAM.${action}.${stream}`), `${action} ${stream}`).to.deep.equal(['operator', 'provisioner']);
    }
    for (const create of [`$JS.API.CONSUMER.CREATE.COMPLIANCE.${durable}`, `$JS.API.CONSUMER.CREATE.COMPLIANCE.${durable}.nhsn.compliance.event.ready-for-validation.v1`,
      `$JS.API.CONSUMER.DURABLE.CREATE.COMPLIANCE.${durable}`]) {
      expect(usersAllowed('publish', create), create).to.deep.equal(['operator', 'provisioner']);
    }
    // The validation service looks its consumer up, pulls and acks; the tenant only publishes.
    expect(usersAllowed('publish', `$JS.API.CONSUMER.INFO.COMPLIANCE.${durable}`)).to.deep.equal(['operator', 'provisioner', 'validation']);
    const tenant = manifestUsers().find((user) => user.user === 'tenant')!;
    expect(tenant.permissions.publish.allow.filter((subject) => subject.startsWith('$JS.'))).to.deep.equal(['$JS.API.INFO']);
    const provisioner = manifestUsers().find((user) => user.user === 'provisioner')!;
    expect(provisioner.permissions.publish.allow.filter((subject) => !subject.startsWith('$JS.API.'))).to.deep.equal([]);
    expect(provisioner.permissions.subscribe.allow).to.deep.equal(['_INBOX_provisioner.>']);
    for (const forbidden of ['$JS.API.STREAM.DELETE.COMPLIANCE', '$JS.API.STREAM.PURGE.COMPLIANCE', `$JS.API.CONSUMER.DELETE.COMPLIANCE.${durable}`,
      '$JS.API.STREAM.MSG.DELETE.DEAD_LETTER', '$JS.API.STREAM.MSG.GET.DEAD_LETTER']) {
      expect(usersAllowed('publish', forbidden), forbidden).to.deep.equal(['operator']);
    }
    expect(usersAllowed('publish', `$JS.API.CONSUMER.MSG.NEXT.COMPLIANCE.${durable}`)).to.deep.equal(['operator', 'validation']);
    expect(usersAllowed('publish', `$JS.ACK.COMPLIANCE.${durable}.1.2.3.4.5`)).to.deep.equal(['validation']);
    expect(usersAllowed('publish', '$JS.API.CONSUMER.MSG.NEXT.COMPLIANCE.report-service-validation-complete')).to.deep.equal(['operator', 'report-service']);
    // No service has the whole API.
    expect(usersAllowed('publish', '$JS.API.ANYTHING.AT.ALL')).to.deep.equal(['operator']);
  });

  it('the services this repository deploys connect as their users, with the password from their Secret', () => {
    const production = renderKustomization(path.join(root, 'deploy/overlays/production'));
    const find = (kind: string, name: string) => {
      const object = production.find((o: K8sObject) => o.kind === kind && o.metadata.name === name);
      if (!object) throw new Error(`${kind}/${name} not rendered`);
      return object;
    };
    const envOf = (kind: string, name: string) => specOf<WorkloadSpec>(find(kind, name)).template?.spec?.containers?.[0]?.env ?? [];
    for (const [service, secret] of [['tenant', 'tenant-secrets'], ['validation', 'validation-secrets']] as const) {
      expect(dataOf(find('ConfigMap', `${service}-config`)).data?.NATS_USER, service).to.equal(service);
      const env = envOf('Deployment', service);
      expect(env.find((item) => item.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef, service).to.deep.equal({ name: secret, key: 'NATS_PASSWORD' });
    }
    // The services do not provision; the Job does, as its own user with its own password.
    for (const service of ['tenant', 'validation']) expect(dataOf(find('ConfigMap', `${service}-config`)).data?.NATS_PROVISION, service).to.equal('false');
    const job = envOf('Job', 'jetstream-provisioning');
    expect(job.find((item) => item.name === 'NATS_USER')?.value).to.equal('provisioner');
    expect(job.find((item) => item.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef).to.deep.equal({ name: 'jetstream-provisioning-secrets', key: 'NATS_PASSWORD' });
    expect(natsUsers(catalog).filter((user) => user.deployedHere).map((user) => user.user)).to.deep.equal(['tenant', 'validation', 'provisioner']);
  });

  it('follows the catalog: another subject root changes every subject', () => {
    const other = natsUsers(buildCatalog({ subjectRoot: 'test', streamSuffix: '_X' }));
    const tenant = other.find((user) => user.user === 'tenant')!;
    expect(tenant.subscribe).to.include('test.tenant.rpc.sign-client-assertion.v1');
    expect(other.find((user) => user.user === 'provisioner')!.publish).to.include('$JS.API.STREAM.CREATE.COMPLIANCE_X');
    expect(other.find((user) => user.user === 'validation')!.publish).to.include('$JS.API.CONSUMER.MSG.NEXT.COMPLIANCE_X.validation-ready-for-validation');
  });
});
