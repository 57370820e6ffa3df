/**
 * Bundle.signature as the HL7 validator verifies it: a JWS (compact, base64 in Signature.data,
 * the signer's certificate in its x5c header) or an XML DSig with XAdES signing time (the
 * certificate in KeyInfo), over the Bundle's canonical JSON or XML form. The Bundles here are
 * signed in the test, with a key pair and a self-signed certificate made in the test (the
 * certificate's DER is written by hand below: node:crypto reads certificates but makes none), and
 * the canonical content they sign is written out by hand, independently of the engine's composers.
 */
import { expect } from 'chai';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { canonicalXhtml } from '#validation/domain/engine/checks/xhtml-canonical.js';
import { canonicalJson } from '#validation/domain/engine/json/canonical-json.js';
import { type ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { canonicalize, parseXmlTree } from '#validation/domain/engine/xml/c14n.js';
import { sourceWith } from './support/core-definitions.js';
import { engineKeyOf } from './support/helpers.js';

const JSON_CANON = 'http://hl7.org/fhir/canonicalization/json';
const DOCUMENT_CANON = 'http://hl7.org/fhir/canonicalization/json#document';
const SIGNATURE_IDS = new Set([
  'BUNDLE_SIGNATURE_SIG_FAIL_CERT', 'BUNDLE_SIGNATURE_PAYLOAD_MISMATCH', 'BUNDLE_SIGNATURE_HEADER_WHEN_MISMATCH', 'BUNDLE_SIGNATURE_NO_WHEN',
  'BUNDLE_SIGNATURE_DIGSIG_WHEN_MISMATCH', 'BUNDLE_SIGNATURE_SIG_DIGEST_MISMATCH', 'BUNDLE_SIGNATURE_SIG_DIGEST_MISMATCH_XADES', 'BUNDLE_SIGNATURE_DIGSIG_SIGNED_MISMATCH',
  'BUNDLE_SIGNATURE_CHECKED_DATA_B64', 'BUNDLE_SIGNATURE_NOT_CHECKED_DATA_B64',
]);

// --- a self-signed X.509 certificate, DER by hand -------------------------------------------

function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}
const seq = (...c: Buffer[]) => der(0x30, ...c);
const SHA256_WITH_RSA = seq(Buffer.from('06092a864886f70d01010b', 'hex'), Buffer.from('0500', 'hex'));
const name = (cn: string) => seq(der(0x31, seq(Buffer.from('0603550403', 'hex'), der(0x0c, Buffer.from(cn)))));
const utcTime = (t: string) => der(0x17, Buffer.from(t));

/** A certificate for `publicKey`, signed with `signer` (the matching private key: self-signed). */
function certificate(publicKey: KeyObject, signer: KeyObject, cn = 'signature test'): Buffer {
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.from([1])),
    SHA256_WITH_RSA,
    name(cn),
    seq(utcTime('250101000000Z'), utcTime('350101000000Z')),
    name(cn),
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  return seq(tbs, SHA256_WITH_RSA, der(0x03, Buffer.from([0]), sign('sha256', tbs, signer)));
}

// --- signing ---------------------------------------------------------------------------------

/** Sorted keys, no whitespace: the canonical form of the plain Bundles signed here. */
function jcs(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(jcs).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return '{' + Object.keys(o).sort().map((k) => JSON.stringify(k) + ':' + jcs(o[k])).join(',') + '}';
  }
  return JSON.stringify(value);
}

interface Signer {
  privateKey: KeyObject;
  cert: Buffer;
}

function makeSigner(): Signer {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey, cert: certificate(publicKey, privateKey) };
}

/** A JWS over `content` with `signer`'s key, the certificate `cert` in its header; `detached` leaves the payload out. */
function jws(content: string, signer: Signer, cert: Buffer, detached: boolean, header: Record<string, unknown> = {}): string {
  const protectedHeader = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JOSE', x5c: [cert.toString('base64')], ...header })).toString('base64url');
  const payload = Buffer.from(content, 'utf8').toString('base64url');
  const signature = sign('sha256', Buffer.from(`${protectedHeader}.${payload}`), signer.privateKey).toString('base64url');
  return `${protectedHeader}.${detached ? '' : payload}.${signature}`;
}

interface SignOptions {
  method?: string;
  detached?: boolean;
  /** The certificate put in the header (default: the signer's own). */
  cert?: Buffer;
  /** The canonical content signed (default: the Bundle without its signature, or id and meta for #document). */
  content?: string;
  /** More JWS header parameters (sigT, canon). */
  header?: Record<string, unknown>;
  /** targetFormat (default: FHIR JSON with the method as its canonicalization parameter). */
  targetFormat?: string;
}

function signed(bundle: Record<string, unknown>, signer: Signer, o: SignOptions = {}): Record<string, unknown> {
  const method = o.method ?? JSON_CANON;
  const omit = method.endsWith('#document') ? ['signature', 'id', 'meta'] : ['signature'];
  const content = o.content ?? jcs(Object.fromEntries(Object.entries(bundle).filter(([k]) => !omit.includes(k))));
  const data = Buffer.from(jws(content, signer, o.cert ?? signer.cert, o.detached ?? false, o.header)).toString('base64');
  return {
    ...bundle,
    signature: {
      type: [{ system: 'urn:iso-astm:E1762-95:2013', code: '1.2.840.10065.1.12.1.1' }],
      when: '2025-07-01T07:59:50Z',
      who: { display: 'signature test' },
      targetFormat: o.targetFormat ?? `application/fhir+json;canonicalization=${method}`,
      sigFormat: 'application/jose',
      data,
    },
  };
}

const observation = {
  resourceType: 'Observation', id: 'o1',
  text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">A <b>simple</b> example</div>' },
  status: 'final', code: { text: 'something' }, valueQuantity: { value: 1 },
};
const collection = (): Record<string, unknown> => ({
  resourceType: 'Bundle', id: 'b1', type: 'collection', timestamp: '2024-06-09T11:06:35+10:00',
  entry: [{ fullUrl: 'http://example.org/fhir/Observation/o1', resource: structuredClone(observation) }],
});

const signatureIssues = (o: ValidationOutcome) => o.issue.filter((i) => SIGNATURE_IDS.has(String(engineKeyOf(i))));
const signatureKeys = (o: ValidationOutcome) => signatureIssues(o).map((i) => `${i.severity} ${String(engineKeyOf(i))} ${String(i.expression?.[0])}`);

describe('engine: Bundle.signature (a JWS or an XML DSig over the Bundle\'s canonical form)', function () {
  this.timeout(60_000);
  let v: Validator;
  let signer: Signer;
  let other: Signer;
  before(async () => {
    v = new Validator(await sourceWith([]));
    signer = makeSigner();
    other = makeSigner();
  });

  it('a valid signature, detached or with its payload, gives no signature issue', () => {
    expect(signatureKeys(v.validate(signed(collection(), signer, { detached: true })))).to.deep.equal([]);
    expect(signatureKeys(v.validate(signed(collection(), signer)))).to.deep.equal([]);
  });

  it('verifies ES256 with an EC key as well', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    // the certificate's own signature is not what is checked: any issuer key will do here
    const cert = certificate(ec.publicKey, signer.privateKey);
    const bundle = collection();
    const content = jcs(Object.fromEntries(Object.entries(bundle).filter(([k]) => k !== 'signature')));
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', x5c: [cert.toString('base64')] })).toString('base64url');
    const payload = Buffer.from(content).toString('base64url');
    const sig = sign('sha256', Buffer.from(`${header}.${payload}`), { key: ec.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    const withSignature = (data: string) => ({ ...bundle, signature: { type: [{ system: 'urn:iso-astm:E1762-95:2013', code: '1.2.840.10065.1.12.1.1' }], when: '2025-07-01T07:59:50Z', who: { display: 'x' }, targetFormat: `application/fhir+json;canonicalization=${JSON_CANON}`, sigFormat: 'application/jose', data: Buffer.from(data).toString('base64') } });
    expect(signatureKeys(v.validate(withSignature(`${header}..${sig}`)))).to.deep.equal([]);
    expect(signatureKeys(v.validate({ ...withSignature(`${header}..${sig}`), type: 'batch' }))).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle']);
  });

  it('reads the canonical form from the source text: property order, whitespace and decimals as written', () => {
    const bundle = collection();
    const text = JSON.stringify(signed(bundle, signer, { content: jcs(bundle).replace('"value":1', '"value":1.50') }), null, 2).replace('"value": 1', '"value": 1.50');
    expect(signatureKeys(v.validate(text))).to.deep.equal([]);
  });

  it('#document leaves the Bundle id and meta out: they may change after signing', () => {
    const doc = signed(collection(), signer, { method: DOCUMENT_CANON });
    expect(signatureKeys(v.validate({ ...doc, id: 'moved', meta: { versionId: '3' } }))).to.deep.equal([]);
    // the plain json canonicalization covers them
    const plain = signed(collection(), signer, { method: JSON_CANON });
    expect(signatureKeys(v.validate({ ...plain, id: 'moved' }))).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle', 'error BUNDLE_SIGNATURE_PAYLOAD_MISMATCH Bundle']);
  });

  it('content changed after signing: the signature does not verify, and the content to sign is not the signed content', () => {
    const bundle = signed(collection(), signer);
    const changed = structuredClone(bundle);
    ((changed.entry as Record<string, Record<string, unknown>>[])[0]!.resource!).status = 'amended';
    const o = v.validate(changed);
    expect(signatureKeys(o)).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle', 'error BUNDLE_SIGNATURE_PAYLOAD_MISMATCH Bundle']);
    const mismatch = signatureIssues(o)[1]!.details?.text ?? '';
    expect(mismatch).to.match(/^The signature cannot be valid because the content to sign \([\d,]+ bytes\} is not the same as the signed content \([\d,]+ bytes\)$/);
    // detached: there is no signed content to compare, only the signature
    const detached = structuredClone(signed(collection(), signer, { detached: true }));
    ((detached.entry as Record<string, Record<string, unknown>>[])[0]!.resource!).status = 'amended';
    expect(signatureKeys(v.validate(detached))).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle']);
  });

  it('signed with another key than the certificate\'s: the signature does not verify', () => {
    expect(signatureKeys(v.validate(signed(collection(), other, { cert: signer.cert })))).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle']);
    expect(signatureKeys(v.validate(signed(collection(), other, { cert: signer.cert, detached: true })))).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle']);
  });

  it('the signing time in the header must be Signature.when, which must be there', () => {
    expect(signatureKeys(v.validate(signed(collection(), signer, { header: { sigT: '2025-07-01T07:59:50Z' } })))).to.deep.equal([]);
    // iat (seconds) when there is no sigT, written as an instant
    expect(signatureKeys(v.validate(signed(collection(), signer, { header: { iat: 1751356790 } })))).to.deep.equal([]);
    const late = signed(collection(), signer, { header: { sigT: '2025-07-02T00:00:00Z' } });
    const o = v.validate(late);
    expect(signatureKeys(o)).to.deep.equal(['error BUNDLE_SIGNATURE_HEADER_WHEN_MISMATCH Bundle']);
    expect(signatureIssues(o)[0]!.details?.text).to.include('2025-07-02T00:00:00Z').and.include('2025-07-01T07:59:50Z');
    const noWhen = signed(collection(), signer);
    delete (noWhen.signature as Record<string, unknown>).when;
    expect(signatureKeys(v.validate(noWhen))).to.deep.equal(['error BUNDLE_SIGNATURE_NO_WHEN Bundle']);
  });

  it('finds the method as HL7 does: the header\'s canon first, any method but #document covering all but the signature, a default by Bundle type', () => {
    // canon in the header wins over targetFormat
    expect(signatureKeys(v.validate(signed(collection(), signer, { method: JSON_CANON, header: { canon: JSON_CANON }, targetFormat: `application/fhir+json;canonicalization=${DOCUMENT_CANON}` })))).to.deep.equal([]);
    // #data (or any other fragment) is composed as the plain json method
    expect(signatureKeys(v.validate(signed(collection(), signer, { method: `${JSON_CANON}#data` })))).to.deep.equal([]);
    // no method at all: json, and #document for a document Bundle
    expect(signatureKeys(v.validate(signed(collection(), signer, { targetFormat: 'application/fhir+json' })))).to.deep.equal([]);
    const doc = { ...collection(), type: 'document' };
    expect(signatureKeys(v.validate({ ...signed(doc, signer, { method: DOCUMENT_CANON, targetFormat: 'application/fhir+json' }), id: 'other' }))).to.deep.equal([]);
  });

  it('reads data as HL7 does: the JWS itself (an error, then checked), data that is neither (an error), a JWS without sigFormat', () => {
    const good = signed(collection(), signer);
    const sig = good.signature as Record<string, string>;
    const compact = Buffer.from(sig.data!, 'base64').toString();
    expect(signatureKeys(v.validate({ ...good, signature: { ...sig, data: compact } }))).to.deep.equal(['error BUNDLE_SIGNATURE_CHECKED_DATA_B64 Bundle']);
    const bad = signed(collection(), other, { cert: signer.cert });
    const badSig = bad.signature as Record<string, string>;
    expect(signatureKeys(v.validate({ ...bad, signature: { ...badSig, data: Buffer.from(badSig.data!, 'base64').toString() } })))
      .to.deep.equal(['error BUNDLE_SIGNATURE_CHECKED_DATA_B64 Bundle', 'error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle']);
    expect(signatureKeys(v.validate({ ...good, signature: { ...sig, data: 'not-base64!' } }))).to.deep.equal(['error BUNDLE_SIGNATURE_NOT_CHECKED_DATA_B64 Bundle']);
    // no sigFormat: a JWS is recognized by its header
    const { sigFormat: _, ...noFormat } = badSig;
    expect(signatureKeys(v.validate({ ...bad, signature: noFormat }))).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle']);
    expect(signatureKeys(v.validate({ ...bad, signature: { ...noFormat, data: Buffer.from('an image').toString('base64') } }))).to.deep.equal([]);
  });

  it('says nothing of a signature it cannot judge: another format, no certificate, data that is not a JWS', () => {
    const good = signed(collection(), signer);
    const sig = good.signature as Record<string, unknown>;
    const tampered = { ...collection(), id: 'changed' };
    expect(signatureKeys(v.validate({ ...tampered, signature: { ...sig, sigFormat: 'image/png' } }))).to.deep.equal([]);
    expect(signatureKeys(v.validate({ ...tampered, signature: { ...sig, sigFormat: 'application/pkcs7-signature', data: Buffer.from('<not xml').toString('base64') } }))).to.deep.equal([]);
    expect(signatureKeys(v.validate({ ...tampered, signature: { ...sig, data: Buffer.from('not a jws').toString('base64') } }))).to.deep.equal([]);
    const header = Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url');
    const noCert = Buffer.from(`${header}..${Buffer.from('x').toString('base64url')}`).toString('base64');
    expect(signatureKeys(v.validate({ ...tampered, signature: { ...sig, data: noCert } }))).to.deep.equal([]);
    // and a Bundle with no signature is not looked at
    expect(signatureKeys(v.validate(collection()))).to.deep.equal([]);
  });

  it('writes a narrative back as HL7 does: entities decoded and re-escaped, empty and void elements, attributes in double quotes', () => {
    expect(canonicalXhtml('<div xmlns="http://www.w3.org/1999/xhtml">Say &quot;hi&quot; &amp; <b>bye</b>&#169;&#x1F600;</div>'))
      .to.equal('<div xmlns="http://www.w3.org/1999/xhtml">Say "hi" &amp; <b>bye</b>&copy;&#x1F600;</div>');
    expect(canonicalXhtml('<div><a name=\'x\'></a><br></br><img src="a&amp;b"/><p/><span title=""> </span></div>'))
      .to.equal('<div><a name="x"></a><br/><img src="a&amp;b"/><p/><span title="null"> </span></div>');
    // what HL7's reading would keep and this one cannot reproduce: no canonical form
    expect(canonicalXhtml('<div><!-- c -->x</div>')).to.equal(undefined);
    expect(canonicalXhtml('<div>&eacute;</div>')).to.equal(undefined);
    expect(canonicalXhtml('<div><b>x</div>')).to.equal(undefined);
  });

  it('composes the canonical JSON: keys sorted, what has no content left out, the method\'s root properties omitted', () => {
    const bundle = { resourceType: 'Bundle', id: 'x', meta: null, type: 'collection', link: [], entry: [{ resource: { resourceType: 'Basic', code: { text: 'é' }, extension: [] } }], signature: {} };
    expect(canonicalJson(bundle, JSON_CANON)).to.equal('{"entry":[{"resource":{"code":{"text":"é"},"resourceType":"Basic"}}],"id":"x","resourceType":"Bundle","type":"collection"}');
    expect(canonicalJson(bundle, DOCUMENT_CANON)).to.equal('{"entry":[{"resource":{"code":{"text":"é"},"resourceType":"Basic"}}],"resourceType":"Bundle","type":"collection"}');
    // an object with no content is no element: left out, or null as an array item
    const sparse = { resourceType: 'Basic', code: { coding: [{}, { code: 'a' }], text: null }, subject: {}, extension: [{ url: null }] };
    expect(canonicalJson(sparse, JSON_CANON)).to.equal('{"code":{"coding":[null,{"code":"a"}]},"resourceType":"Basic"}');
  });
  // --- canonical XML: a JWS over it, and an XML DSig (XAdES) as HL7's signer writes one ---------

  /** The Bundle below in canonical XML (XML-C14N of FHIR XML): id kept (json), or left out (#document). */
  const XML_BUNDLE = { resourceType: 'Bundle', id: 'b1', type: 'collection', timestamp: '2024-06-09T11:06:35+10:00', entry: [{ fullUrl: 'urn:uuid:5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b', resource: { resourceType: 'Basic', code: { text: 'a & b' } } }] };
  const xmlContent = (document: boolean) => '<Bundle xmlns="http://hl7.org/fhir">' + (document ? '' : '<id value="b1"></id>')
    + '<type value="collection"></type><timestamp value="2024-06-09T11:06:35+10:00"></timestamp>'
    + '<entry><fullUrl value="urn:uuid:5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"></fullUrl><resource><Basic><code><text value="a &amp; b"></text></code></Basic></resource></entry></Bundle>';

  it('a JWS over canonical XML is checked against the Bundle written as canonical XML', () => {
    const xmlTarget = 'application/fhir+xml;canonicalization=http://hl7.org/fhir/canonicalization/xml';
    const good = signed(structuredClone(XML_BUNDLE), signer, { content: xmlContent(false), targetFormat: xmlTarget, detached: true });
    expect(signatureKeys(v.validate(good))).to.deep.equal([]);
    expect(signatureKeys(v.validate({ ...good, id: 'b2' }))).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle']);
  });

  const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64');
  const XADES = 'http://uri.etsi.org/01903/v1.3.2#';

  /** An XML DSig as HL7's signer makes one: XAdES signing time, the content digest, SignedInfo in HL7's layout. */
  function xmlDsig(content: string, by: Signer, cert: Buffer, signingTime: string, withSignedBytes: boolean): string {
    const signedProperties = `<x:SignedProperties xmlns:x="${XADES}" Id="SignedProperties"><x:SignedSignatureProperties><x:SigningTime>${signingTime}</x:SigningTime></x:SignedSignatureProperties></x:SignedProperties>`;
    // SignedInfo canonicalized: end tags written out, the layout's whitespace kept, nothing before or after the element
    const signedInfo = '<SignedInfo xmlns="http://www.w3.org/2000/09/xmldsig#">\n'
      + '    <CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></CanonicalizationMethod>\n'
      + '    <SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"></SignatureMethod>\n'
      + '    <Reference URI="#">\n      <Transforms>\n        <Transform Algorithm="http://hl7.org/fhir/canonicalization/xml#document"></Transform>\n      </Transforms>\n'
      + '      <DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod>\n'
      + `      <DigestValue>${sha(content)}</DigestValue>\n    </Reference>\n`
      + '    <Reference Type="http://uri.etsi.org/01903#SignedProperties" URI="#SignedProperties">\n'
      + '      <DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod>\n'
      + `      <DigestValue>${sha(signedProperties)}</DigestValue>\n    </Reference>\n  </SignedInfo>`;
    const value = sign('sha256', Buffer.from(signedInfo, 'utf8'), by.privateKey).toString('base64');
    return '<?xml version="1.0" encoding="UTF-8"?>\n<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">\n'
      + signedInfo.replace('<SignedInfo xmlns="http://www.w3.org/2000/09/xmldsig#">', '<SignedInfo>') + '\n'
      + `<SignatureValue>${value}</SignatureValue>\n`
      + (withSignedBytes ? `<SignedBytes>${Buffer.from(content).toString('base64')}</SignedBytes>\n` : '')
      + `<KeyInfo><X509Data><X509Certificate>${cert.toString('base64')}</X509Certificate></X509Data></KeyInfo>\n`
      + `<Object><x:QualifyingProperties xmlns:x="${XADES}" Target="#signature">${signedProperties.replace(` xmlns:x="${XADES}"`, '')}</x:QualifyingProperties></Object>\n</Signature>`;
  }

  function dsigBundle(by: Signer, o: { cert?: Buffer; when?: string; signedBytes?: boolean } = {}): Record<string, unknown> {
    const when = '2025-07-01T08:24:48Z';
    const data = xmlDsig(xmlContent(true), by, o.cert ?? by.cert, when, o.signedBytes ?? true);
    return {
      ...structuredClone(XML_BUNDLE),
      signature: {
        type: [{ system: 'urn:iso-astm:E1762-95:2013', code: '1.2.840.10065.1.12.1.1' }], when: o.when ?? when, who: { display: 'signature test' },
        targetFormat: 'application/fhir+xml;canonicalization=http://hl7.org/fhir/canonicalization/xml#document',
        sigFormat: 'application/pkcs7-signature', data: Buffer.from(data).toString('base64'),
      },
    };
  }

  it('an XML DSig: verified over the canonical XML, its digests and signing time checked', () => {
    expect(signatureKeys(v.validate(dsigBundle(signer)))).to.deep.equal([]);
    // #document: the id may change
    expect(signatureKeys(v.validate({ ...dsigBundle(signer), id: 'moved' }))).to.deep.equal([]);
    const changed = { ...dsigBundle(signer), type: 'batch' };
    expect(signatureKeys(v.validate(changed))).to.deep.equal([
      'error BUNDLE_SIGNATURE_SIG_DIGEST_MISMATCH Bundle', 'error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle', 'error BUNDLE_SIGNATURE_DIGSIG_SIGNED_MISMATCH Bundle',
    ]);
    expect(signatureKeys(v.validate({ ...dsigBundle(signer, { signedBytes: false }), type: 'batch' }))).to.deep.equal([
      'error BUNDLE_SIGNATURE_SIG_DIGEST_MISMATCH Bundle', 'error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle',
    ]);
    // signed with another key than the certificate's: the digests hold, the signature does not
    expect(signatureKeys(v.validate(dsigBundle(other, { cert: signer.cert, signedBytes: false })))).to.deep.equal(['error BUNDLE_SIGNATURE_SIG_FAIL_CERT Bundle']);
    expect(signatureKeys(v.validate(dsigBundle(signer, { when: '2025-07-02T00:00:00Z' })))).to.deep.equal(['error BUNDLE_SIGNATURE_DIGSIG_WHEN_MISMATCH Bundle']);
  });

  it('canonicalizes XML as XML-C14N 1.0 does, inclusive and exclusive', () => {
    const tree = parseXmlTree('<?xml version="1.0"?>\n<a xmlns="urn:a" xmlns:p="urn:p" z="1" b=\'x&quot;&#9;y\'><!-- c --><p:b p:c="2" a="1"/><c xmlns="urn:a">t &amp; &lt;&gt;\r\n</c></a>');
    expect(canonicalize(tree!, false)).to.equal('<a xmlns="urn:a" xmlns:p="urn:p" b="x&quot;&#x9;y" z="1"><p:b a="1" p:c="2"></p:b><c>t &amp; &lt;&gt;\n</c></a>');
    const inner = (tree!.children.find((c) => typeof c !== 'string' && c.name === 'p:b'))!;
    expect(canonicalize(inner as Exclude<typeof inner, string>, true)).to.equal('<p:b xmlns:p="urn:p" a="1" p:c="2"></p:b>');
    expect(canonicalize(inner as Exclude<typeof inner, string>, false)).to.equal('<p:b xmlns="urn:a" xmlns:p="urn:p" a="1" p:c="2"></p:b>');
    expect(parseXmlTree('<a><b></a>')).to.equal(undefined);
  });
});
