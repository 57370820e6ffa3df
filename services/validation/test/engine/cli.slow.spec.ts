/**
 * The validate CLI, called in-process through main(): output formats, --load/--profile,
 * --harness, exit status.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { defaultPackageFiles } from '#validation/cli/default-packages.js';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkerMessage } from '#validation/cli/parallel-validation.js';
import { main, parseCliArgs } from '#validation/cli/validate.js';
import { profile } from './support/helpers.js';
import type { Issue } from '#validation/domain/engine/outcome/issue.js';

describe('engine: validate CLI', function () {
  this.timeout(60_000);
  let dir: string;
  const file = (name: string, content: unknown) => {
    const p = path.join(dir, name);
    writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
    return p;
  };
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, (s) => out.push(s), (s) => err.push(s));
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'engine-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses options and rejects unknown ones', () => {
    expect(parseCliArgs(['--bogus', 'x.json'])).to.be.a('string');
    expect(parseCliArgs([])).to.be.a('string');
    const a = parseCliArgs(['--ig', 'p.tgz', '--load', 'r.json', '--profile', 'http://p', '--format', 'text', 'f.json']);
    expect(a).to.deep.include({ igs: ['p.tgz'], loads: ['r.json'], profiles: ['http://p'], format: 'text', files: ['f.json'] });
  });

  it('prints an OperationOutcome and exits 0 for a valid resource', async () => {
    const f = file('ok.json', { resourceType: 'Patient', id: 'p1', text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' } });
    const r = await run([f]);
    expect(r.code).to.equal(0);
    const oo = JSON.parse(r.out) as { resourceType: string; issue: Issue[] };
    expect(oo.resourceType).to.equal('OperationOutcome');
    expect(oo.issue.filter((i) => i.severity === 'error')).to.deep.equal([]);
  });

  it('text format: one line per issue, exit 1 when there is an error', async () => {
    const f = file('bad.json', '{"resourceType":"Patient",\n"birthDate":"not a date"}');
    const r = await run(['--format', 'text', f]);
    expect(r.code).to.equal(1);
    expect(r.out).to.include('error Patient.birthDate [line 2] Not a valid date (not a date)');
  });

  it('--no-example-urls and --security-checks turn the HL7 validator\'s optional checks on', async () => {
    const f = file('dr.json', { resourceType: 'DocumentReference', id: 'd', status: 'current', content: [{ attachment: { url: 'http://x.example.org/a', title: '<b>x</b>' } }] });
    expect((await run(['--format', 'text', f])).code).to.equal(0);
    const strict = await run(['--format', 'text', '--no-example-urls', '--security-checks', f]);
    expect(strict.code).to.equal(1);
    expect(strict.out).to.include('Example URLs are not allowed in this context (http://x.example.org/a)');
    expect(strict.out).to.include('looks like embedded HTML tags');
  });

  it('--harness: loads supporting files, applies the profiles, prints exactly one OperationOutcome', async () => {
    const sd = file('sd.json', profile('http://example.org/cli-patient', 'Patient', [{ id: 'Patient.gender', path: 'Patient.gender', min: 1 }]));
    const f = file('p.json', { resourceType: 'Patient' });
    const r = await run(['--harness', f, 'http://example.org/cli-patient', sd]);
    const oo = JSON.parse(r.out) as { issue: Issue[] };
    expect(oo.issue.map((i) => i.details.text)).to.include('Patient.gender: minimum required = 1, but only found 0 (from http://example.org/cli-patient|1.0.0)');
    expect(r.code).to.equal(1);
  });

  it('reads FHIR XML: the file validated as XML, supporting profiles in XML', async () => {
    const sd = file('sd.xml', `<StructureDefinition xmlns="http://hl7.org/fhir"><url value="http://example.org/cli-xml-patient"/><version value="1.0.0"/>
      <name value="CliXmlPatient"/><status value="active"/><kind value="resource"/><abstract value="false"/><type value="Patient"/>
      <baseDefinition value="http://hl7.org/fhir/StructureDefinition/Patient"/><derivation value="constraint"/>
      <differential><element id="Patient.gender"><path value="Patient.gender"/><min value="1"/></element></differential></StructureDefinition>`);
    const f = file('p.xml', '<Patient xmlns="http://hl7.org/fhir">\n  <active value="true"/>\n  <foo value="x"/>\n</Patient>');
    const r = await run(['--harness', f, 'http://example.org/cli-xml-patient', sd]);
    const issues = (JSON.parse(r.out) as { issue: Issue[] }).issue.map((i) => `${i.expression?.[0]} ${i.details.text}`);
    expect(issues).to.include('Patient Patient.gender: minimum required = 1, but only found 0 (from http://example.org/cli-xml-patient|1.0.0)');
    expect(issues).to.include("/f:Patient Undefined element 'foo' at /f:Patient");
    expect(r.err).to.equal('');
  });

  it('knows the core extension pack by default, as the HL7 validator; --no-extension-pack leaves it out', async () => {
    // individual-genderIdentity is defined by the extension pack, not by R4 core
    const f = file('ext-pack.json', {
      resourceType: 'Patient', id: 'p1', text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' },
      extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/individual-genderIdentity', extension: [{ url: 'value', valueCodeableConcept: { text: 'x' } }] }],
    });
    const byDefault = await run(['--format', 'text', f]);
    expect(byDefault.out).not.to.include('is unknown');
    expect(byDefault.code).to.equal(0);
    const without = await run(['--format', 'text', '--no-extension-pack', f]);
    expect(without.out).to.include('error Patient.extension[0] [line 1] The extension http://hl7.org/fhir/StructureDefinition/individual-genderIdentity is unknown, and not allowed here');
    expect(without.code).to.equal(1);
    expect(parseCliArgs(['--no-extension-pack', 'f.json'])).to.deep.include({ extensionPack: false });
    expect(parseCliArgs(['f.json'])).to.deep.include({ extensionPack: true });
  });

  it('leaves a damaged embedded extension pack out with a warning', async () => {
    const packages = path.join(dir, 'packages');
    const bytes = Buffer.from('not a package');
    const entry = { file: 'ext.tgz', name: 'hl7.fhir.uv.extensions', version: '1.0.0', fhirVersion: '5.0.0', license: 'CC0-1.0', sha256: createHash('sha256').update('other bytes').digest('hex'), bytes: bytes.length };
    mkdirSync(packages, { recursive: true });
    writeFileSync(path.join(packages, 'ext.tgz'), bytes);
    writeFileSync(path.join(packages, 'manifest.json'), JSON.stringify({ description: 'test', packages: [entry] }));
    const damaged = await defaultPackageFiles(packages);
    expect(damaged.files).to.deep.equal([]);
    expect(damaged.warnings.join()).to.include('the core extension pack is not loaded');
    writeFileSync(path.join(packages, 'manifest.json'), JSON.stringify({ description: 'test', packages: [{ ...entry, sha256: createHash('sha256').update(bytes).digest('hex') }] }));
    expect((await defaultPackageFiles(packages)).files).to.deep.equal([path.join(packages, 'ext.tgz')]);
  });

  it('several files in this thread and worker threads: the same outcomes, in the order of the files, as in this thread alone', async () => {
    const files = [
      file('w1.json', '{"resourceType":"Patient",\n"birthDate":"not a date"}'),
      file('w2.json', { resourceType: 'Observation', id: 'o' }),
      path.join(dir, 'missing.json'),
      file('w3.json', { resourceType: 'Patient', id: 'p3', gender: 'neither' }),
      file('w4.json', { resourceType: 'Patient', id: 'p4' }),
    ];
    const inThread = await run(['--threads', '1', ...files]);
    const inWorkers = await run(['--threads', '2', ...files]);
    expect(inWorkers).to.deep.equal(inThread);
    const bundle = JSON.parse(inWorkers.out);
    expect(bundle.entry.map((e: { fullUrl: string }) => path.basename(e.fullUrl))).to.deep.equal(['w1.json', 'w2.json', 'missing.json', 'w3.json', 'w4.json']);
    expect(inWorkers.code).to.equal(1);
    const text = await run(['--threads', '2', '--format', 'text', ...files]);
    expect(text.out).to.equal((await run(['--threads', '1', '--format', 'text', ...files])).out);
    expect(parseCliArgs(['--threads', '0', 'f.json'])).to.be.a('string');
  });

  it('a CLI worker thread answers the outcome this thread gives, as JSON text, after saying it is ready', async () => {
    const f = file('worker.json', '{"resourceType":"Patient",\n"birthDate":"not a date"}');
    const expected = JSON.parse((await run(['--threads', '1', f])).out);
    const worker = new Worker(fileURLToPath(new URL('../../src/cli/validate-worker.ts', import.meta.url)), {
      workerData: { setup: { igs: [], loads: [], cache: true, settings: {} }, profiles: [] }, execArgv: process.execArgv,
    });
    try {
      const messages: WorkerMessage[] = [];
      const next = () => new Promise<WorkerMessage>((resolve) => worker.once('message', resolve)).then((m) => { messages.push(m); return m; });
      expect(await next()).to.deep.equal({ kind: 'ready', warnings: [] });
      worker.postMessage({ index: 7, file: f });
      const answer = await next();
      expect(answer).to.include({ kind: 'outcome', index: 7 });
      expect(JSON.parse((answer as { outcomeJson: string }).outcomeJson)).to.deep.equal(expected);
    } finally {
      await worker.terminate();
    }
  });

  it('a missing file gives a fatal issue, not a crash', async () => {
    const r = await run(['--harness', path.join(dir, 'nope.json'), '', '']);
    const oo = JSON.parse(r.out);
    expect(oo.issue[0].severity).to.equal('fatal');
    expect(r.code).to.equal(1);
  });
});
