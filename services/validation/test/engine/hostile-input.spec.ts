/**
 * Hostile input: huge documents, absurd nesting and huge Bundles end in a clear error or a
 * completed validation, never a crash, a stack overflow or a hang.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { coreSource } from './support/core-definitions.js';
import { issuesWith } from './support/helpers.js';

describe('engine: hostile input', function () {
  this.timeout(120_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await coreSource());
  });

  it('a 50 MB JSON document: parsed and validated, the oversized string reported', () => {
    const big = 'a'.repeat(50 * 1024 * 1024);
    const text = `{"resourceType":"Patient","name":[{"family":"${big}"}]}`;
    expect(text.length).to.be.greaterThan(50 * 1024 * 1024);
    const o = v.validate(text);
    expect(issuesWith(o, 'value is longer than permitted maximum length of 1 MB', 'Patient.name[0].family')).to.have.length(1);
  });

  it('a document over the size limit is refused with a clear fatal issue', () => {
    const small = new Validator({ structureDefinition: () => undefined, valueSet: () => undefined, codeSystem: () => undefined, all: () => [] }, undefined, { maxInputLength: 1000 });
    const o = small.validate(`{"resourceType":"Patient","id":"${'x'.repeat(2000)}"}`);
    expect(o.issue).to.have.length(1);
    expect(o.issue[0]?.severity).to.equal('fatal');
    expect(o.issue[0]?.details.text).to.match(/too large/);
  });

  it('10,000 levels of nesting as text: a clear fatal error, no stack overflow', () => {
    const depth = 10_000;
    let text = '';
    for (let i = 0; i < depth; i++) text += '{"url":"http://x","extension":[';
    text += '{"url":"http://x","valueString":"a"}';
    for (let i = 0; i < depth; i++) text += ']}';
    const o = v.validate(`{"resourceType":"Patient","extension":[${text}]}`);
    const fatal = o.issue.find((i) => i.severity === 'fatal');
    expect(fatal?.details.text).to.match(/nested too deeply/);
  });

  it('10,000 levels of nesting as an object: a clear error, no stack overflow', () => {
    let inner: Record<string, unknown> = { url: 'http://example.org/x', valueString: 'a' };
    for (let i = 0; i < 10_000; i++) inner = { url: 'http://example.org/x', extension: [inner] };
    const o = v.validate({ resourceType: 'Patient', extension: [inner] });
    expect(issuesWith(o, 'nested too deeply')).to.have.length.greaterThan(0);
  });

  it('never throws on randomly mutated resources (deterministic fuzz)', () => {
    let seed = Number(process.env.FUZZ_SEED ?? 42);
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const junk = [null, '', ' ', 0, -1, 1.5, true, [], {}, [null], [{}], 'x'.repeat(70), { resourceType: 'Patient' }, '<script>', '#x', 'urn:uuid:X'];
    const base = {
      resourceType: 'Bundle', type: 'document',
      entry: [
        { fullUrl: 'urn:uuid:11111111-1111-4111-8111-111111111111', resource: { resourceType: 'Composition', status: 'final', type: { text: 't' }, date: '2020', author: [{ reference: 'urn:uuid:22222222-2222-4222-8222-222222222222' }], title: 't', section: [{ entry: [{ reference: '#x' }] }] } },
        { fullUrl: 'urn:uuid:22222222-2222-4222-8222-222222222222', resource: { resourceType: 'Patient', contained: [{ resourceType: 'Organization', id: 'x' }], name: [{ given: ['a'], _given: [{ extension: [{ url: 'http://x', valueString: 'y' }] }] }], extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/patient-birthPlace', valueAddress: { city: 'c' } }] } },
        { resource: { resourceType: 'QuestionnaireResponse', questionnaire: '#q', status: 'completed', contained: [{ resourceType: 'Questionnaire', id: 'q', status: 'active', item: [{ linkId: '1', type: 'integer' }] }], item: [{ linkId: '1', answer: [{ valueInteger: 1 }] }] } },
      ],
    };
    const mutate = (v: unknown, depth: number): unknown => {
      if (rnd() < 0.08) return junk[Math.floor(rnd() * junk.length)];
      if (Array.isArray(v)) return v.map((x) => mutate(x, depth + 1));
      if (v && typeof v === 'object') {
        const o: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) {
          if (rnd() < 0.05) continue;
          o[rnd() < 0.03 ? k + 'X' : k] = mutate(x, depth + 1);
        }
        return o;
      }
      return v;
    };
    for (let i = 0; i < Number(process.env.FUZZ_N ?? 300); i++) {
      const input = mutate(base, 0);
      const text = JSON.stringify(input);
      const cut = rnd() < 0.2 ? text.slice(0, Math.floor(rnd() * text.length)) : text;
      expect(() => v.validate(input)).to.not.throw();
      expect(() => v.validate(cut)).to.not.throw();
    }
  });

  it('every core resource definition and profile validates sparse and odd resources without throwing', async () => {
    const source = await coreSource();
    let count = 0;
    for (const sd of source.all('StructureDefinition') as Iterable<Record<string, unknown>>) {
      const { type, url } = sd;
      if (sd.kind !== 'resource' || typeof type !== 'string' || typeof url !== 'string' || sd.abstract === true) continue;
      const odd = { resourceType: type, id: 'x', meta: { profile: [url] }, extension: [{ url: 'http://x' }], contained: [{ resourceType: 'Patient', id: 'c' }], text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' } };
      expect(() => v.validate({ resourceType: type }, { profiles: [url] })).to.not.throw();
      expect(() => v.validate(odd)).to.not.throw();
      count++;
    }
    expect(count).to.be.greaterThan(140);
  });

  it('a definition source that throws yields a fatal issue, not an exception', () => {
    const broken = new Validator({ structureDefinition: () => ({ resourceType: 'StructureDefinition', url: 'x', kind: 'resource', type: 'Patient', get snapshot(): never { throw new Error('corrupt definition'); } }), valueSet: () => undefined, codeSystem: () => undefined, all: () => [] });
    const o = broken.validate({ resourceType: 'Patient' });
    expect(o.issue.some((i) => i.severity === 'fatal' || i.severity === 'error')).to.equal(true);
  });
});
