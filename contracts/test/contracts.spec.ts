import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { buildCatalog, catalog, catalogForNamespace, STREAM_LIMITS, streamLimitsFromEnvironment, subjectMatches, type JsonSchema } from '../catalog.js';
import { compileSchema, validateMessage, validateReply } from '../validate.js';
import { INVALID, INVALID_REPLIES, VALID, VALID_REPLIES } from './fixtures.js';

const schemaDir = fileURLToPath(new URL('../schemas/', import.meta.url));
const schemaFiles = readdirSync(schemaDir).filter((f) => f.endsWith('.schema.json'));
const loadSchema = (file: string) => JSON.parse(readFileSync(schemaDir + file, 'utf8')) as JsonSchema;

/** Every `properties` entry anywhere in the schema, with its path. */
function eachProperty(node: unknown, path: string, visit: (path: string, prop: Record<string, unknown>) => void): void {
  if (Array.isArray(node)) { node.forEach((n, i) => eachProperty(n, `${path}[${i}]`, visit)); return; }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && typeof value === 'object' && value !== null && !path.endsWith('.if')) {
      for (const [name, prop] of Object.entries(value as Record<string, Record<string, unknown>>)) {
        visit(`${path}.${name}`, prop);
        eachProperty(prop, `${path}.${name}`, visit);
      }
    } else {
      eachProperty(value, `${path}.${key}`, visit);
    }
  }
}

describe('contracts: schemas', () => {
  it('every schema file is draft-07 with $id, title and description, and compiles', () => {
    expect(schemaFiles.length).to.be.greaterThan(10);
    for (const file of schemaFiles) {
      const s = loadSchema(file);
      expect(s.$schema, file).to.equal('http://json-schema.org/draft-07/schema#');
      expect(s.$id, file).to.match(new RegExp(`/${file.replace(/\./g, '\\.')}$`));
      expect(s.title, file).to.be.a('string').with.length.greaterThan(0);
      expect(s.description, file).to.be.a('string').with.length.greaterThan(0);
      expect(() => compileSchema(s), file).not.to.throw();
    }
  });

  it('every property of every schema is documented', () => {
    const undocumented: string[] = [];
    for (const file of schemaFiles) {
      eachProperty(loadSchema(file), file, (path, prop) => { if (typeof prop.description !== 'string' || prop.description === '') undocumented.push(path); });
    }
    expect(undocumented).to.deep.equal([]);
  });

  it('every catalog schema is a file in contracts/schemas, identical to the imported one', () => {
    for (const m of catalog.messages) {
      for (const ref of [m.payload, m.reply].filter((r) => r !== undefined)) {
        expect(schemaFiles, m.name).to.include(ref.file);
        expect(loadSchema(ref.file), ref.file).to.deep.equal(ref.schema);
      }
    }
  });
});

describe('contracts: ResourceAcquired 0.6.0 (as the specification gives it)', () => {
  const schema = catalog.byName('ResourceAcquired').payload.schema as unknown as { properties: Record<string, { type: unknown }>; additionalProperties: unknown; required?: unknown };

  it('has exactly the seven nullable fields, none required, no others allowed', () => {
    expect(catalog.byName('ResourceAcquired').version).to.equal('0.6.0');
    expect(schema.additionalProperties).to.equal(false);
    expect(schema.required).to.equal(undefined);
    expect(Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, v.type]))).to.deep.equal({
      acquisitionComplete: ['boolean', 'null'], patientId: ['string', 'null'], queryType: ['string', 'null'], resource: ['object', 'null'],
      scheduledReports: ['array', 'null'], reportableEvent: ['string', 'null'], reportTrackingId: ['string', 'null'],
    });
  });

  it('accepts an empty object and an all-null object', () => {
    expect(validateMessage('ResourceAcquired', {})).to.deep.equal({ ok: true });
    const allNull = Object.fromEntries(Object.keys(schema.properties).map((k) => [k, null]));
    expect(validateMessage('ResourceAcquired', allNull)).to.deep.equal({ ok: true });
  });

  it('rejects an extra field and names it', () => {
    const r = validateMessage('ResourceAcquired', { patientId: 'p', schemaVersion: '0.6.0' });
    expect(r).to.deep.equal({ ok: false, errors: "(root) must NOT have additional property 'schemaVersion'" });
  });
});

describe('contracts: fixtures', () => {
  for (const m of catalog.messages) {
    const name = m.name as keyof typeof VALID;
    it(`${m.name}: the valid fixture passes, every invalid fixture fails`, () => {
      expect(validateMessage(m.name, VALID[name]), 'valid fixture').to.deep.equal({ ok: true });
      expect(INVALID[name], 'at least one invalid fixture').to.have.length.greaterThan(0);
      for (const bad of INVALID[name]) {
        const r = validateMessage(m.name, bad.payload);
        expect(r.ok, bad.why).to.equal(false);
        if (!r.ok) expect(r.errors, bad.why).to.be.a('string').with.length.greaterThan(0);
      }
    });
  }
  for (const m of catalog.messages.filter((x) => x.reply)) {
    const name = m.name as keyof typeof VALID_REPLIES;
    it(`${m.name} reply: valid replies (results and typed errors) pass, invalid fail`, () => {
      for (const ok of VALID_REPLIES[name]) expect(validateReply(m.name, ok), JSON.stringify(ok)).to.deep.equal({ ok: true });
      expect(INVALID_REPLIES[name]).to.have.length.greaterThan(0);
      for (const bad of INVALID_REPLIES[name]) expect(validateReply(m.name, bad.payload).ok, bad.why).to.equal(false);
    });
  }

  it('errors are readable: path and reason', () => {
    const r = validateMessage('ReportScheduled', { ...VALID.ReportScheduled, frequency: 'Hourly', reportTypes: [1] });
    expect(r.ok).to.equal(false);
    if (!r.ok) {
      expect(r.errors).to.contain('/frequency must be equal to one of the allowed values: "Daily", "Weekly", "Monthly"');
      expect(r.errors).to.contain('/reportTypes/0 must be string');
    }
  });

  it('a regenerate command needs no period, a new report does', () => {
    expect(validateMessage('GenerateReportRequested', { schemaVersion: '1.0.0', facilityId: 'f', reportId: 'r', bypassSubmission: true, regenerate: true })).to.deep.equal({ ok: true });
    const r = validateMessage('GenerateReportRequested', { schemaVersion: '1.0.0', facilityId: 'f', reportId: 'r', bypassSubmission: true, regenerate: false });
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.errors).to.contain("must have required property 'startDate'");
  });

  it('unknown message names and replies of non-request-reply messages are programming errors', () => {
    expect(() => validateMessage('NoSuchMessage', {})).to.throw(/Unknown message "NoSuchMessage"/);
    expect(() => validateReply('ReadyForValidation', {})).to.throw(/has no reply/);
  });
});

describe('contracts: catalog', () => {
  it('subjects are unique and follow <root>.<domain>.<event|command|rpc>.<kebab-name>.v<major>', () => {
    const subjects = catalog.messages.map((m) => m.subject);
    expect(new Set(subjects).size).to.equal(subjects.length);
    for (const m of catalog.messages) {
      expect(m.subject, m.name).to.match(/^nhsn\.[a-z]+\.(event|command|rpc)\.[a-z0-9-]+\.v\d+$/);
      expect(m.subject.endsWith(`.v${m.version.split('.')[0]}`), m.name).to.equal(true);
    }
    expect(catalog.byName('ReadyForValidation').subject).to.equal('nhsn.compliance.event.ready-for-validation.v1');
    expect(catalog.byName('ResourceAcquired').subject).to.equal('nhsn.acquisition.event.resource-acquired.v0');
    expect(catalog.byName('GetFacilityConfig').subject).to.equal('nhsn.tenant.rpc.get-facility-config.v1');
  });

  it('every JetStream message matches its own stream and no other; request-reply subjects match no stream', () => {
    const all = [...catalog.streams, catalog.deadLetterStream];
    for (const m of catalog.messages) {
      const matching = all.filter((s) => s.subjects.some((f) => subjectMatches(f, m.subject))).map((s) => s.name);
      if (m.transport === 'jetstream') expect(matching, m.name).to.deep.equal([m.stream]);
      else expect(matching, m.name).to.deep.equal([]);
    }
  });

  it('stream subject filters do not overlap (JetStream refuses overlapping streams)', () => {
    const filters = [...catalog.streams, catalog.deadLetterStream].flatMap((s) => s.subjects.map((f) => ({ s: s.name, f })));
    for (const a of filters) for (const b of filters) {
      if (a.s === b.s) continue;
      const probe = a.f.replace('>', 'x.y');
      expect(subjectMatches(b.f, probe), `${a.f} vs ${b.f}`).to.equal(false);
    }
  });

  it('streams keep messages with a 2-minute duplicate window on file; dead letters live in DEAD_LETTER under nhsn.dead-letter.>', () => {
    for (const s of catalog.streams) {
      expect(s.duplicateWindowMs).to.equal(120_000);
      expect(s.storage).to.equal('file');
      expect(s.retention).to.equal('limits');
    }
    expect(catalog.deadLetterStream.name).to.equal('DEAD_LETTER');
    expect(catalog.deadLetterStream.subjects).to.deep.equal(['nhsn.dead-letter.>']);
    expect(catalog.streams.map((s) => s.name).sort()).to.deep.equal(['ACQUISITION', 'COMPLIANCE', 'EVALUATION', 'REPORT']);
  });

  it('MeasureReportGenerated is an alias of ResourceEvaluated: same schema, own subject', () => {
    const alias = catalog.byName('MeasureReportGenerated');
    const original = catalog.byName('ResourceEvaluated');
    expect(alias.aliasOf).to.equal('ResourceEvaluated');
    expect(alias.payload.schema).to.equal(original.payload.schema);
    expect(alias.subject).to.not.equal(original.subject);
  });

  it('a test catalog changes only the subject root and stream names', () => {
    const t = buildCatalog({ subjectRoot: 't1', streamSuffix: '_T1' });
    expect(t.byName('ReadyForValidation').subject).to.equal('t1.compliance.event.ready-for-validation.v1');
    expect(t.byName('ReadyForValidation').stream).to.equal('COMPLIANCE_T1');
    expect(t.deadLetterStream.subjects).to.deep.equal(['t1.dead-letter.>']);
    expect(t.bySubject('t1.report.event.report-scheduled.v1')?.name).to.equal('ReportScheduled');
    expect(t.bySubject('nhsn.report.event.report-scheduled.v1')).to.equal(undefined);
  });

  it('a namespace (nats.namespace) keeps installations on one NATS apart: own subjects, streams and dead letters, overlapping nothing of the others', () => {
    expect(catalogForNamespace(undefined)).to.equal(catalog);
    expect(catalogForNamespace('')).to.equal(catalog);
    const demo = catalogForNamespace('demo-1');
    expect(demo.byName('ReadyForValidation').subject).to.equal('demo-1.nhsn.compliance.event.ready-for-validation.v1');
    expect(demo.byName('ReadyForValidation').stream).to.equal('COMPLIANCE_DEMO_1');
    expect(demo.deadLetterStream).to.include({ name: 'DEAD_LETTER_DEMO_1' });
    expect(demo.deadLetterStream.subjects).to.deep.equal(['demo-1.nhsn.dead-letter.>']);
    expect(demo.byName('GetFacilityConfig').subject, 'request-reply too').to.equal('demo-1.nhsn.tenant.rpc.get-facility-config.v1');
    // One server holds them all: no stream of one installation may capture another's subjects (JetStream would refuse it anyway).
    const installations = [catalog, demo, catalogForNamespace('nhsn'), catalogForNamespace('dead-letter')];
    for (const mine of installations) {
      for (const other of installations.filter((c) => c !== mine)) {
        const theirStreams = [...other.streams, other.deadLetterStream];
        expect(theirStreams.map((s) => s.name).filter((name) => [...mine.streams, mine.deadLetterStream].some((s) => s.name === name))).to.deep.equal([]);
        for (const m of mine.messages) {
          const captured = theirStreams.filter((s) => s.subjects.some((f) => subjectMatches(f, m.subject))).map((s) => s.name);
          expect(captured, `${mine.subjectRoot}: ${m.subject}`).to.deep.equal([]);
        }
        for (const filter of [...mine.streams, mine.deadLetterStream].flatMap((s) => s.subjects)) {
          const probe = filter.replace('>', 'x.y');
          expect(theirStreams.filter((s) => s.subjects.some((f) => subjectMatches(f, probe))).map((s) => s.name), probe).to.deep.equal([]);
        }
      }
    }
    expect(() => catalogForNamespace('Demo')).to.throw(/lower-case/);
    expect(() => catalogForNamespace('a.b')).to.throw(/lower-case/);
  });

  it('streams are sized per profile (nats.stream-limits): production keeps its sizes, local and test reserve far less of the server', () => {
    const sizes = (c: typeof catalog) => [...c.streams.map((s) => s.maxBytes), c.deadLetterStream.maxBytes];
    expect(sizes(catalog)).to.deep.equal([...catalog.streams.map(() => 4 * 1024 ** 3), 2 * 1024 ** 3]);
    expect(sizes(catalogForNamespace('dev-a', 'local'))).to.deep.equal([...catalog.streams.map(() => STREAM_LIMITS.local.stream), STREAM_LIMITS.local.deadLetter]);
    expect(sizes(catalogForNamespace(undefined, 'test'))).to.deep.equal([...catalog.streams.map(() => STREAM_LIMITS.test.stream), STREAM_LIMITS.test.deadLetter]);
    expect(catalogForNamespace(undefined, 'test').subjectRoot, 'only the sizes change').to.equal(catalog.subjectRoot);
    // A laptop's JetStream (75 % of a 100 GB disk) holds a dozen local installations; production sizes allowed four.
    const installation = (p: 'production' | 'local') => (catalog.streams.length * STREAM_LIMITS[p].stream + STREAM_LIMITS[p].deadLetter);
    expect(Math.floor(75e9 / installation('local'))).to.be.greaterThan(12 * Math.floor(75e9 / installation('production')));
    expect(streamLimitsFromEnvironment(undefined, 'local')).to.equal('local');
    expect(streamLimitsFromEnvironment(' test ', 'local')).to.equal('test');
    expect(() => streamLimitsFromEnvironment('huge', 'local')).to.throw(/production, local, test/);
  });

  it('subjectMatches follows NATS wildcard rules', () => {
    expect(subjectMatches('a.>', 'a.b.c')).to.equal(true);
    expect(subjectMatches('a.>', 'a')).to.equal(false);
    expect(subjectMatches('a.*.c', 'a.b.c')).to.equal(true);
    expect(subjectMatches('a.*.c', 'a.b.d')).to.equal(false);
    expect(subjectMatches('a.b', 'a.b.c')).to.equal(false);
  });
});
