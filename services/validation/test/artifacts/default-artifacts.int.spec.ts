/**
 * The default artifacts of a fresh installation: `$initialize` (both spellings) loads the IG
 * packages embedded in the service, plus or instead of `artifact.init-dir` (`artifact.init-mode`),
 * telling the engine once; at first start they are stored before the engine's first build, which
 * then runs with them (and says which), while an engine without any package warns loudly.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { ConfigError } from '#adapters/config/index.js';
import { capturingLogger } from '#adapters/http/test/support.js';
import type { Database } from '#adapters/persistence/database.js';
import {
  EMBEDDED_MANIFEST_FILE, EmbeddedPackageSource, embeddedPackagesDirectory, readEmbeddedManifest,
} from '#validation/adapters/artifacts/embedded-packages.js';
import { initialArtifactSources } from '#validation/adapters/artifacts/initial-sources.js';
import { EngineHost, NO_PACKAGES_WARNING } from '#validation/adapters/engine/engine-host.js';
import { initializeAndStartEngine } from '#validation/adapters/engine/initialize-and-start.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import type { ArtifactChangeListener } from '#validation/domain/ports/artifact-repository.js';
import { buildTestApi } from '../api/support/app.js';
import { packageEntries, tgz } from '../definitions/support/tar-writer.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from '../api/support/database.js';

const EMBEDDED = [
  'fhir.cqf.common', 'gov.cdc.nhsn.measures', 'hl7.fhir.us.core', 'hl7.fhir.us.cqfmeasures', 'hl7.fhir.us.davinci-deqm',
  'hl7.fhir.us.qicore', 'hl7.fhir.uv.cpg', 'hl7.fhir.uv.extensions', 'hl7.terminology',
];
const valueSet = { resourceType: 'ValueSet', id: 'deployment-vs', url: 'http://example.org/ValueSet/deployment-vs', status: 'active' };

/** Counts the change notices: one per rebuild the engine would do. */
function countingListener(): ArtifactChangeListener & { calls: string[] } {
  const calls: string[] = [];
  return { calls, artifactsChanged: async (change) => { calls.push(change.kind); } };
}

describe('validation: default artifacts (embedded IG packages and artifact.init-dir)', function () {
  this.timeout(180_000);
  const databases: string[] = [];
  let initDir: string;
  /** Two of the embedded packages (quicker to load) where the test is about the order of the sources. */
  let twoEmbedded: EmbeddedPackageSource;
  let twoEmbeddedDir: string;

  const freshDatabase = async (): Promise<Database> => {
    const name = uniqueDbName('defart');
    databases.push(name);
    return openValidationTestDatabase(name);
  };

  before(async () => {
    initDir = await mkdtemp(path.join(tmpdir(), 'default-artifacts-'));
    await writeFile(path.join(initDir, 'ValueSet-deployment-vs.json'), JSON.stringify(valueSet));
    // The deployment pins its own US Core file (here: the same bytes under another file name).
    await copyFile(path.join(embeddedPackagesDirectory()!, 'hl7.fhir.us.core.tgz'), path.join(initDir, 'us-core-pinned.tgz'));
    twoEmbeddedDir = await mkdtemp(path.join(tmpdir(), 'default-artifacts-embedded-'));
    const manifest = await readEmbeddedManifest(embeddedPackagesDirectory()!);
    const two = manifest.packages.filter((p) => p.name === 'fhir.cqf.common' || p.name === 'hl7.fhir.us.core');
    for (const entry of two) await copyFile(path.join(embeddedPackagesDirectory()!, entry.file), path.join(twoEmbeddedDir, entry.file));
    await writeFile(path.join(twoEmbeddedDir, EMBEDDED_MANIFEST_FILE), JSON.stringify({ ...manifest, packages: two }));
    twoEmbedded = new EmbeddedPackageSource(twoEmbeddedDir);
  });
  after(async () => {
    for (const name of databases) await dropValidationTestDatabase(name);
    if (initDir) await rm(initDir, { recursive: true, force: true });
    if (twoEmbeddedDir) await rm(twoEmbeddedDir, { recursive: true, force: true });
  });

  it('$initialize (both spellings) loads the nine embedded packages and tells the engine once', async () => {
    const db = await freshDatabase();
    try {
      const listener = countingListener();
      const api = buildTestApi(db, { artifactListener: listener, initialArtifacts: initialArtifactSources({ artifactInitMode: 'add' }) });
      const report = await request(api.app).post('/api/aritfact/$initialize').expect(200);
      expect(report.body.failed).to.deep.equal([]);
      expect(report.body.stored.map((s: { name: string; source: string; type: string; created: boolean }) => [s.name, s.source, s.type, s.created]))
        .to.deep.equal(EMBEDDED.map((name) => [name, 'embedded', 'PACKAGE', true]));
      expect(listener.calls, 'one rebuild for nine packages').to.deep.equal(['initialized']);
      const again = await request(api.app).post('/api/artifact/$initialize').expect(200);
      expect(again.body.stored.every((s: { created: boolean }) => !s.created)).to.equal(true);
      expect(listener.calls).to.deep.equal(['initialized', 'initialized']);
      const qicore = await request(api.app).get('/api/artifact/package/hl7.fhir.us.qicore').expect(200);
      expect(qicore.body.details.dependencies).to.deep.include.members([
        { name: 'hl7.fhir.r4.core', version: '4.0.1', status: 'built-in', storedVersion: '4.0.1' },
        { name: 'hl7.fhir.us.core', version: '3.1.1', status: 'present', storedVersion: '3.1.1' },
        { name: 'us.nlm.vsac', version: '0.4.0', status: 'missing' },
      ]);
    } finally {
      await db.close();
    }
  });

  it('add: the directory comes after the embedded packages (its package of the same name replaces the embedded one); replace: the directory alone', async () => {
    const db = await freshDatabase();
    try {
      const added = buildTestApi(db, { initialArtifacts: initialArtifactSources({ artifactInitMode: 'add', artifactInitDir: initDir }, twoEmbedded) });
      const report = (await request(added.app).post('/api/artifact/$initialize').expect(200)).body as { stored: { name: string; source: string; file: string; created: boolean }[] };
      expect(report.stored.filter((s) => s.source === 'embedded').map((s) => s.name)).to.deep.equal(['fhir.cqf.common', 'hl7.fhir.us.core']);
      expect(report.stored.filter((s) => s.source === 'artifact.init-dir').map((s) => [s.file, s.name, s.created])).to.deep.equal([
        ['ValueSet-deployment-vs.json', 'deployment-vs', true], ['us-core-pinned.tgz', 'hl7.fhir.us.core', false],
      ]);
      expect((await request(added.app).get('/api/artifact').expect(200)).body).to.have.length(3);

      const other = await freshDatabase();
      try {
        const replaced = buildTestApi(other, { initialArtifacts: initialArtifactSources({ artifactInitMode: 'replace', artifactInitDir: initDir }, twoEmbedded) });
        const only = (await request(replaced.app).post('/api/artifact/$initialize').expect(200)).body as { stored: { name: string; source: string }[] };
        expect(only.stored.map((s) => [s.name, s.source])).to.deep.equal([['deployment-vs', 'artifact.init-dir'], ['hl7.fhir.us.core', 'artifact.init-dir']]);
      } finally {
        await other.close();
      }
    } finally {
      await db.close();
    }
  });

  it('reports a configured directory that does not exist (the embedded packages still load); replace without a directory is a configuration error', async () => {
    const db = await freshDatabase();
    try {
      const missing = path.join(initDir, 'no-such-mount');
      const api = buildTestApi(db, { initialArtifacts: initialArtifactSources({ artifactInitMode: 'add', artifactInitDir: missing }, twoEmbedded) });
      const report = (await request(api.app).post('/api/artifact/$initialize').expect(200)).body as { stored: unknown[]; failed: { file: string; source: string; reason: string }[] };
      expect(report.stored).to.have.length(2);
      expect(report.failed).to.deep.equal([{ file: 'artifact.init-dir', source: 'artifact.init-dir', reason: `artifact.init-dir ${missing} is not a directory` }]);
    } finally {
      await db.close();
    }
    expect(() => initialArtifactSources({ artifactInitMode: 'replace' })).to.throw(ConfigError, /artifact\.init-mode \(ARTIFACT_INIT_MODE\) is replace.*ARTIFACT_INIT_DIR/);
  });

  it('at first start the engine is built once, with the embedded packages, and the log names them', async () => {
    const db = await freshDatabase();
    const { logger, lines } = capturingLogger();
    const engine = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 1, terminology: {}, logger });
    try {
      const api = buildTestApi(db, {
        validator: engine, initialArtifacts: initialArtifactSources({ artifactInitMode: 'add' }),
        artifactListener: { artifactsChanged: async (change) => { await engine.reload(`artifact ${change.kind}`); } },
      });
      const { initialized, generation } = await initializeAndStartEngine(api.module, engine, { artifactInit: true });
      expect(initialized.artifacts?.stored).to.have.length(EMBEDDED.length);
      expect(generation.number, 'one build').to.equal(1);
      expect(generation.packageIds).to.include.members(['hl7.fhir.us.core#3.1.1', 'hl7.fhir.us.qicore#4.1.1', 'hl7.fhir.us.davinci-deqm#3.1.0', 'gov.cdc.nhsn.measures#1.0.0-cibuild']);
      const ready = lines.filter((line) => String(line.msg).startsWith('validation engine ready'));
      expect(ready).to.have.length(1);
      expect(ready[0]!.msg).to.include('9 IG package(s): ').and.include('hl7.fhir.us.core#3.1.1');
      expect(lines.some((line) => line.msg === NO_PACKAGES_WARNING)).to.equal(false);

      // The NHSN profiles are there now; a profile nobody has makes the submission invalid (with the default categories).
      const validate = async (profile: string) => (await request(api.app).post('/api/$validate-and-categorize')
        .send({ resourceType: 'Patient', id: 'p1', meta: { profile: [profile] }, gender: 'female' }).expect(200)).body as {
        issues: { message: string; categories: { id: string; acceptable: boolean }[] }[]; validity: { valid: boolean };
      };
      const known = await validate('http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/cross-measure-patient');
      expect(known.issues.filter((i) => i.message.startsWith("Can't find profile"))).to.deep.equal([]);
      expect(known.issues.some((i) => /minimum required/.test(i.message)), 'the NHSN patient profile was applied').to.equal(true);
      const unknown = await validate('http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition/no-such-patient-profile');
      const missing = unknown.issues.filter((i) => i.message.startsWith("Can't find profile"));
      expect(missing.map((i) => i.categories.map((c) => [c.id, c.acceptable]))).to.deep.equal([[['profile_not_available', false]]]);
      expect(unknown.validity.valid).to.equal(false);

      // A restart: artifacts are stored and none of the embedded packages is newer, so nothing is stored and the engine starts from the store.
      const restarted = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 1, terminology: {}, logger });
      try {
        const again = await initializeAndStartEngine(api.module, restarted, { artifactInit: true });
        expect(again.initialized.artifacts).to.deep.equal({ stored: [], failed: [] });
        expect(again.generation.packages).to.equal(EMBEDDED.length);
      } finally {
        await restarted.close();
      }
    } finally {
      await engine.close();
      await db.close();
    }
  });

  it('spec lines 142, 312: a newer version of a package the store has is loaded at start-up; the same or an older one, and packages the store lacks, are not', async () => {
    const db = await freshDatabase();
    try {
      const pkg = (name: string, version: string) => tgz(packageEntries({ name, version, fhirVersions: ['4.0.1'], dependencies: { 'hl7.fhir.r4.core': '4.0.1' } },
        [{ resourceType: 'ValueSet', id: `vs-${version}`, url: `http://example.org/ValueSet/${name}`, version, status: 'active' }]));
      const reads: string[] = [];
      // As the embedded packages: the manifest says name and version, the bytes are read only when needed.
      const source = (packages: { name: string; version: string }[]) => ({
        name: 'embedded',
        list: async () => packages.map((p) => ({ fileName: `${p.name}.tgz`, package: p, read: async () => { reads.push(`${p.name}#${p.version}`); return pkg(p.name, p.version); } })),
      });
      const listener = countingListener();
      const older = buildTestApi(db, { artifactListener: listener, initialArtifacts: [source([{ name: 'example.upgraded', version: '1.0.0' }, { name: 'example.kept', version: '2.0.0' }])] });
      await older.module.initializeIfEmpty({ artifactInit: true });
      await request(older.app).put('/api/artifact/PACKAGE/example.uploaded').type('application/gzip').send(pkg('example.uploaded', '3.0.0')).expect(201);
      await request(older.app).delete('/api/artifact/PACKAGE/example.kept').expect(204);
      await request(older.app).put('/api/artifact/PACKAGE/example.kept').type('application/gzip').send(pkg('example.kept', '2.1.0')).expect(201);
      reads.length = 0;
      listener.calls.length = 0;

      // The next release embeds 1.1.0 of one (newer), 2.0.1-ballot of another (older than 2.1.0 stored), 3.0.0 of the uploaded one (the same), and a package the store lacks.
      const release = buildTestApi(db, { artifactListener: listener, initialArtifacts: [source([
        { name: 'example.upgraded', version: '1.1.0' }, { name: 'example.kept', version: '2.0.1-ballot' },
        { name: 'example.uploaded', version: '3.0.0' }, { name: 'example.deleted', version: '1.0.0' },
      ])] });
      const { artifacts } = await release.module.initializeIfEmpty({ artifactInit: true });
      expect(artifacts?.stored.map((s) => [s.name, s.created])).to.deep.equal([['example.upgraded', false]]);
      expect(reads, 'only the newer package was read').to.deep.equal(['example.upgraded#1.1.0']);
      expect(listener.calls, 'the engine is told once').to.deep.equal(['initialized']);
      const versions = Object.fromEntries(((await request(release.app).get('/api/artifact').expect(200)).body as { name: string; version: string }[]).map((a) => [a.name, a.version]));
      expect(versions).to.deep.equal({ 'example.upgraded': '1.1.0', 'example.kept': '2.1.0', 'example.uploaded': '3.0.0' });
      // Nothing newer: nothing stored, the engine not told.
      expect((await release.module.initializeIfEmpty({ artifactInit: true })).artifacts).to.deep.equal({ stored: [], failed: [] });
      expect(listener.calls).to.deep.equal(['initialized']);
      // With artifact.init off, not even that.
      expect((await release.module.initializeIfEmpty({ artifactInit: false })).artifacts).to.equal(undefined);
    } finally {
      await db.close();
    }
  });

  it('an engine started without any package warns at warn level, naming what is missing and how to load it', async () => {
    const db = await freshDatabase();
    const { logger, lines } = capturingLogger();
    const engine = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 1, terminology: {}, logger });
    try {
      const api = buildTestApi(db, { validator: engine, initialArtifacts: initialArtifactSources({ artifactInitMode: 'add' }) });
      const { generation } = await initializeAndStartEngine(api.module, engine, { artifactInit: false });
      expect(generation.packages).to.equal(0);
      const warning = lines.find((line) => line.msg === NO_PACKAGES_WARNING);
      expect(warning?.level, 'pino warn').to.equal(40);
      expect(NO_PACKAGES_WARNING).to.include('$initialize').and.include("Can't find profile");
    } finally {
      await engine.close();
      await db.close();
    }
  });
});
