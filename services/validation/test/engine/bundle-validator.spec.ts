/**
 * Bundle rules by Bundle type, as the HL7 validator's BundleValidator: fullUrl required or
 * optional, RESTful fullUrls against the resource's type and id, canonical urls, documents and
 * messages (first entry, references that must resolve, entries reachable from the first),
 * search sets (search modes and the entries they allow) and links.
 */
import { expect } from 'chai';
import { type ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { restfulParts } from '#validation/domain/engine/resource-types/bundle-validator.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, engineKeyOf } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const BASE = 'http://example.org/fhir/';

const ids = (o: ValidationOutcome, severity = 'error') => o.issue.filter((i) => i.severity === severity).map((i) => String(engineKeyOf(i)));
const at = (o: ValidationOutcome, id: string) => o.issue.filter((i) => engineKeyOf(i) === id).map((i) => i.expression?.[0]);

const patient = (id: string) => ({ resourceType: 'Patient', id, text: narrative });
const composition = (more: Record<string, unknown> = {}) => ({
  resourceType: 'Composition', id: 'c', text: narrative, status: 'final', type: { text: 't' }, date: '2024-01-01', author: [{ reference: 'Patient/p' }], title: 't', ...more,
});
const documentBundle = (entries: Record<string, unknown>[]) => ({
  resourceType: 'Bundle', type: 'document', identifier: { system: 'http://x', value: '1' }, timestamp: '2024-01-01T00:00:00Z', entry: entries,
});

describe('engine: Bundle rules by type', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([]));
  });

  it('reads RESTful urls as the HL7 validator does', () => {
    expect(restfulParts('http://example.org/fhir/Patient/1')).to.deep.equal({ type: 'Patient', id: '1' });
    expect(restfulParts('Patient/1/_history/2')).to.deep.equal({ type: 'Patient', id: '1' });
    expect(restfulParts('urn:uuid:5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b')).to.equal(undefined);
    expect(restfulParts('http://example.org/fhir/patient/1')).to.equal(undefined);
    expect(restfulParts('ftp://example.org/Patient/1')).to.equal(undefined);
  });

  describe('entries', () => {
    it('every entry has a fullUrl, except in transactions and batches', () => {
      const collection = v.validate({ resourceType: 'Bundle', type: 'collection', entry: [{ resource: patient('a') }, { fullUrl: BASE + 'Patient/b', resource: patient('b') }] });
      expect(ids(collection), describe_(collection)).to.deep.equal(['BUNDLE_BUNDLE_ENTRY_FULLURL_REQUIRED']);
      expect(at(collection, 'BUNDLE_BUNDLE_ENTRY_FULLURL_REQUIRED')).to.deep.equal(['Bundle.entry[0]']);
      const transaction = v.validate({ resourceType: 'Bundle', type: 'transaction', entry: [{ resource: patient('a'), request: { method: 'POST', url: 'Patient' } }] });
      expect(ids(transaction), describe_(transaction)).to.deep.equal([]);
    });

    it('a RESTful fullUrl names the resource type and id; a resource without id cannot have one', () => {
      const o = v.validate({ resourceType: 'Bundle', type: 'collection', entry: [
        { fullUrl: BASE + 'Patient/a', resource: { resourceType: 'Patient', text: narrative } },
        { fullUrl: BASE + 'Observation/b', resource: patient('b') },
        { fullUrl: 'urn:uuid:5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b', resource: patient('c') },
      ] });
      expect(ids(o), describe_(o)).to.deep.equal(['BUNDLE_ENTRY_URL_MATCHES_NO_ID', 'BUNDLE_FULLURL_ID_MISMATCH']);
      // the HL7 validator names these Bundle.entry[0] whatever the entry
      expect(at(o, 'BUNDLE_FULLURL_ID_MISMATCH')).to.deep.equal(['Bundle.entry[0]']);
    });

    it('a canonical resource whose url is its fullUrl must carry the id of that url', () => {
      const vs = (id: string) => ({ resourceType: 'ValueSet', id, text: narrative, url: BASE + 'ValueSet/vs1', status: 'draft' });
      const ok = v.validate({ resourceType: 'Bundle', type: 'collection', entry: [{ fullUrl: BASE + 'ValueSet/vs1', resource: vs('vs1') }] });
      expect(ids(ok), describe_(ok)).to.deep.equal([]);
      const bad = v.validate({ resourceType: 'Bundle', type: 'collection', entry: [{ fullUrl: BASE + 'ValueSet/vs1', resource: vs('other') }] });
      expect(ids(bad), describe_(bad)).to.include('BUNDLE_BUNDLE_ENTRY_MISMATCHIDURL');
    });
  });

  describe('documents and messages', () => {
    it('a document starts with a Composition whose references resolve, and every entry is reachable from it', () => {
      const ok = v.validate(documentBundle([
        { fullUrl: BASE + 'Composition/c', resource: composition({ subject: { reference: 'Patient/p' } }) },
        { fullUrl: BASE + 'Patient/p', resource: patient('p') },
      ]));
      expect(ids(ok), describe_(ok)).to.deep.equal([]);
      const orphan = v.validate(documentBundle([
        { fullUrl: BASE + 'Composition/c', resource: composition() },
        { fullUrl: BASE + 'Patient/p', resource: patient('p') },
        { fullUrl: BASE + 'Patient/q', resource: patient('q') },
      ]));
      expect(ids(orphan), describe_(orphan)).to.deep.equal(['BUNDLE_BUNDLE_ENTRY_ORPHAN_DOCUMENT']);
      // one past its position, as the HL7 validator names it
      expect(at(orphan, 'BUNDLE_BUNDLE_ENTRY_ORPHAN_DOCUMENT')).to.deep.equal(['Bundle.entry[3]']);
      const missing = v.validate(documentBundle([
        { fullUrl: BASE + 'Composition/c', resource: composition({ author: [{ reference: 'Patient/p' }, { reference: 'Patient/nobody' }] }) },
        { fullUrl: BASE + 'Patient/p', resource: patient('p') },
      ]));
      expect(ids(missing), describe_(missing)).to.deep.equal(['BUNDLE_BUNDLE_ENTRY_NOTFOUND']);
      expect(at(missing, 'BUNDLE_BUNDLE_ENTRY_NOTFOUND')).to.deep.equal(['Bundle.entry[1].resource.author[2]']);
    });

    it('an entry that only points back at the document is let in with a warning (silently for a Provenance)', () => {
      const o = v.validate(documentBundle([
        { fullUrl: BASE + 'Composition/c', resource: composition() },
        { fullUrl: BASE + 'Patient/p', resource: patient('p') },
        { fullUrl: BASE + 'Observation/o', resource: { resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: 'Patient/p' } } },
        { fullUrl: BASE + 'Provenance/v', resource: { resourceType: 'Provenance', id: 'v', text: narrative, target: [{ reference: 'Composition/c' }], recorded: '2024-01-01T00:00:00Z', agent: [{ who: { reference: 'Patient/p' } }] } },
      ]));
      expect(ids(o), describe_(o)).to.deep.equal([]);
      expect(ids(o, 'warning').filter((x) => x === 'BUNDLE_BUNDLE_ENTRY_REVERSE_R4')).to.have.length(1);
    });

    it('the first entry of a document is a Composition, of a message a MessageHeader; neither may be empty', () => {
      const notComposition = v.validate(documentBundle([{ fullUrl: BASE + 'Patient/p', resource: patient('p') }]));
      // the invariant bdl-11 says so too, as in the HL7 validator
      expect(ids(notComposition), describe_(notComposition)).to.deep.equal(['INVARIANT_FAILED', 'BUNDLE_BUNDLE_ENTRY_DOCUMENT']);
      expect(at(notComposition, 'BUNDLE_BUNDLE_ENTRY_DOCUMENT')).to.deep.equal(['Bundle.entry[1].resource']);
      const message = v.validate({ resourceType: 'Bundle', type: 'message', timestamp: '2024-01-01T00:00:00Z', identifier: { system: 'http://x', value: '1' }, entry: [{ fullUrl: BASE + 'Patient/p', resource: patient('p') }] });
      expect(ids(message), describe_(message)).to.include('VALIDATION_BUNDLE_MESSAGE');
      const empty = v.validate({ resourceType: 'Bundle', type: 'document', identifier: { system: 'http://x', value: '1' }, timestamp: '2024-01-01T00:00:00Z' });
      expect(ids(empty), describe_(empty)).to.include('BUNDLE_BUNDLE_ENTRY_NOFIRST');
    });
  });

  describe('search sets and links', () => {
    it('entries with search modes: matches have ids and the searched type, outcomes are OperationOutcomes', () => {
      const o = v.validate({
        resourceType: 'Bundle', type: 'searchset', link: [{ relation: 'self', url: BASE + 'Patient?name=x' }],
        entry: [
          { fullUrl: BASE + 'Patient/a', resource: patient('a'), search: { mode: 'match' } },
          { fullUrl: BASE + 'Observation/b', resource: { resourceType: 'Observation', id: 'b', text: narrative, status: 'final', code: { text: 'x' } }, search: { mode: 'match' } },
          { fullUrl: BASE + 'Patient/c', resource: patient('c'), search: { mode: 'outcome' } },
        ],
      });
      expect(ids(o), describe_(o)).to.deep.equal(['BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_MODE', 'BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_OUTCOME']);
      expect(at(o, 'BUNDLE_SEARCH_ENTRY_WRONG_RESOURCE_TYPE_MODE')).to.deep.equal(['Bundle.entry[1].resource']);
    });

    it('a search set without self link or modes gets warnings, not errors', () => {
      const o = v.validate({ resourceType: 'Bundle', type: 'searchset', entry: [{ fullUrl: BASE + 'Patient/a', resource: patient('a') }] });
      expect(ids(o), describe_(o)).to.deep.equal([]);
      expect(ids(o, 'warning')).to.include('BUNDLE_SEARCH_NOSELF');
    });

    it('paging links only in search sets and histories, each relation once', () => {
      const o = v.validate({ resourceType: 'Bundle', type: 'collection', link: [{ relation: 'next', url: BASE + 'x' }, { relation: 'self', url: BASE + 'a' }, { relation: 'self', url: BASE + 'b' }], entry: [{ fullUrl: BASE + 'Patient/a', resource: patient('a') }] });
      expect(ids(o), describe_(o)).to.deep.equal(['BUNDLE_LINK_SEARCH_PROHIBITED', 'BUNDLE_LINK_SEARCH_NO_DUPLICATES']);
      const search = v.validate({ resourceType: 'Bundle', type: 'searchset', link: [{ relation: 'self', url: BASE + 'Patient' }, { relation: 'next', url: BASE + 'x' }], entry: [{ fullUrl: BASE + 'Patient/a', resource: patient('a'), search: { mode: 'match' } }] });
      expect(ids(search), describe_(search)).to.deep.equal([]);
    });

    it('a document stylesheet is the FHIR one, a resource of the Bundle, or (warnings) another secure link', () => {
      const entries = [
        { fullUrl: BASE + 'Composition/c', resource: composition({ subject: { reference: 'Patient/p' } }) },
        { fullUrl: BASE + 'Patient/p', resource: patient('p') },
        { fullUrl: BASE + 'Binary/css', resource: { resourceType: 'Binary', id: 'css', contentType: 'text/css' } },
      ];
      const styled = (url: string, withBinary = false) => ({ ...documentBundle(withBinary ? entries : entries.slice(0, 2)), link: [{ relation: 'stylesheet', url }] });
      for (const [url, withBinary] of [['https://hl7.org/fhir/fhir.css', false], ['Binary/css', true]] as const) {
        const o = v.validate(styled(url, withBinary));
        expect(ids(o), describe_(o)).to.deep.equal([]);
        expect(ids(o, 'warning').filter((id) => id.startsWith('BUNDLE_LINK_STYELSHEET')), describe_(o)).to.deep.equal([]);
      }
      const missing = v.validate(styled('Binary/other'));
      expect(ids(missing), describe_(missing)).to.deep.equal(['BUNDLE_LINK_STYELSHEET_NOT_FOUND']);
      expect(at(missing, 'BUNDLE_LINK_STYELSHEET_NOT_FOUND')).to.deep.equal(['Bundle.link[0].url']);
      const external = v.validate(styled('http://example.org/style.css'));
      expect(ids(external, 'warning').filter((id) => id.startsWith('BUNDLE_LINK_STYELSHEET')), describe_(external)).to.deep.equal(['BUNDLE_LINK_STYELSHEET_EXTERNAL', 'BUNDLE_LINK_STYELSHEET_INSECURE']);
    });
  });
});
