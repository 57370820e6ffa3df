/**
 * A Bundle's XML digital signature (Bundle.signature with sigFormat application/pkcs7-signature:
 * base64 of an XML DSig `Signature` in `data`), checked as the HL7 validator's BundleValidator
 * checks one:
 *
 * - the signing time (XAdES SignedProperties' SigningTime, else a SignatureProperty's) must be
 *   Signature.when, which must be there;
 * - the content signed is the Bundle's canonical form by the method of the first Reference's
 *   Transform (else targetFormat's, else the default; bundle-signature-content.ts), and the first
 *   Reference's DigestValue must be its SHA-256; a second (XAdES) Reference's DigestValue must be
 *   that of the SignedProperties, exclusively canonicalized;
 * - the SignatureValue must verify, with the key of the certificate in KeyInfo, over the
 *   SignedInfo HL7 builds from those digests (its own fixed layout, canonicalized): when it does
 *   not, "did not verify", and when the signature carries the bytes it signed (SignedBytes) and
 *   they are not the content composed here, that the signature cannot be valid, with both sizes.
 *
 * Not reported (no issue rather than a guess at HL7's text): malformed signatures HL7 reports
 * with messages whose wording is not stored (unreadable XML, a certificate that cannot be read,
 * References it does not understand, no SignatureValue), and its hints.
 */
import { createHash, verify as verifySignature, X509Certificate, type KeyObject } from 'node:crypto';
import type { NodeContext } from '../context/node-context.js';
import { attributeOf, canonicalize, childNamed, childrenNamed, parseXmlTree, textOf } from '../xml/c14n.js';
import { groupDigits, signedContent, signedContentMethod } from './bundle-signature-content.js';

const XADES_REFERENCE = 'http://uri.etsi.org/01903#SignedProperties';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';

/** XML DSig signature methods HL7 verifies, and their digests. */
const METHODS: Readonly<Record<string, string>> = {
  'http://www.w3.org/2000/09/xmldsig#rsa-sha1': 'sha1',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'sha512',
};

/** Checks an XML DSig in Signature.data (base64); HL7's order of issues. */
export function checkXmlSignature(ctx: NodeContext, bundle: Record<string, unknown>, signature: Record<string, unknown>, data: string): void {
  // linear: anchored, one character class
  if (!/^[A-Za-z0-9+/=\s]+$/.test(data)) return;
  const dsig = parseXmlTree(Buffer.from(data, 'base64').toString('utf8'));
  if (dsig === undefined) return;
  const signedInfo = childNamed(dsig, 'SignedInfo');
  const object = childNamed(dsig, 'Object');
  const signedProperties = childNamed(childNamed(object, 'QualifyingProperties'), 'SignedProperties');

  // 1. the signing time
  const sigT = textOf(childNamed(childNamed(signedProperties, 'SignedSignatureProperties'), 'SigningTime'))
    ?? textOf(childNamed(childNamed(childNamed(object, 'SignatureProperties'), 'SignatureProperty'), 'SigningTime'));
  const when = typeof signature.when === 'string' ? signature.when : undefined;
  if (signature.when === undefined) ctx.error('BUNDLE_SIGNATURE_NO_WHEN', []);
  else if (sigT !== undefined && sigT !== when) ctx.error('BUNDLE_SIGNATURE_DIGSIG_WHEN_MISMATCH', [sigT, when ?? '']);

  // 2. the canonicalization
  const references = childrenNamed(signedInfo, 'Reference');
  const contentReference = references[0];
  const transform = attributeOf(childNamed(childNamed(contentReference, 'Transforms'), 'Transform'), 'Algorithm');
  const how = signedContentMethod(transform, signature.targetFormat, bundle.type);

  // 4. the certificate
  const certificate = readCertificate(textOf(childNamed(childNamed(childNamed(dsig, 'KeyInfo'), 'X509Data'), 'X509Certificate')));
  if (certificate === undefined || contentReference === undefined || references.length > 2) return;
  const xadesReference = references.length === 2 && attributeOf(references[1], 'Type') === XADES_REFERENCE ? references[1] : undefined;
  const signatureValue = textOf(childNamed(dsig, 'SignatureValue'));
  if (signatureValue === undefined) return;
  const content = signedContent(ctx, bundle, how);
  if (content === undefined) return;

  // the digests HL7 computes, and the SignedInfo it builds from them
  const digest = sha256(content);
  const expected = textOf(childNamed(contentReference, 'DigestValue'));
  if (digest !== expected) ctx.error('BUNDLE_SIGNATURE_SIG_DIGEST_MISMATCH', [digest, expected ?? '']);
  let xadesDigest: string | undefined;
  if (xadesReference !== undefined && signedProperties !== undefined) {
    xadesDigest = sha256(Buffer.from(canonicalize(signedProperties, true), 'utf8'));
    const expectedXades = textOf(childNamed(xadesReference, 'DigestValue'));
    if (xadesDigest !== expectedXades) ctx.error('BUNDLE_SIGNATURE_SIG_DIGEST_MISMATCH_XADES', [xadesDigest, expectedXades ?? '']);
  }
  const toVerify = signedInfoBytes(certificate.publicKey, how.method, digest, xadesDigest);
  const algorithm = attributeOf(childNamed(signedInfo, 'SignatureMethod'), 'Algorithm');
  const hash = algorithm !== undefined && Object.hasOwn(METHODS, algorithm) ? METHODS[algorithm] : undefined;
  // HL7 says so twice for a method it does not verify: once where it gives up, once after
  if (hash === undefined) ctx.error('BUNDLE_SIGNATURE_SIG_FAIL_CERT', []);
  if (hash !== undefined && toVerify !== undefined && verifies(hash, toVerify, certificate.publicKey, Buffer.from(signatureValue, 'base64'))) return;
  ctx.error('BUNDLE_SIGNATURE_SIG_FAIL_CERT', []);
  const signedBytes = textOf(childNamed(dsig, 'SignedBytes'));
  if (signedBytes !== undefined) {
    const signed = Buffer.from(signedBytes, 'base64');
    if (!signed.equals(content)) ctx.error('BUNDLE_SIGNATURE_DIGSIG_SIGNED_MISMATCH', [groupDigits(content.length), groupDigits(signed.length)]);
  }
}

function readCertificate(base64: string | undefined): X509Certificate | undefined {
  if (base64 === undefined) return undefined;
  try {
    return new X509Certificate(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/**
 * The SignedInfo HL7 signs and verifies, in its fixed layout (two-space indents, one Reference
 * to the content with the method as its Transform, a second to the XAdES SignedProperties when
 * there is one), canonicalized.
 */
function signedInfoBytes(key: KeyObject, method: string, digest: string, xadesDigest: string | undefined): Buffer | undefined {
  const signatureMethod = key.asymmetricKeyType === 'rsa' ? 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256' : 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256';
  let xml = '  <SignedInfo xmlns="http://www.w3.org/2000/09/xmldsig#">\n'
    + `    <CanonicalizationMethod Algorithm="${C14N}"/>\n`
    + `    <SignatureMethod Algorithm="${signatureMethod}"/>\n`
    + '    <Reference URI="#">\n'
    + '      <Transforms>\n'
    + `        <Transform Algorithm="${method}"/>\n`
    + '      </Transforms>\n'
    + `      <DigestMethod Algorithm="${SHA256}"/>\n`
    + `      <DigestValue>${digest}</DigestValue>\n`
    + '    </Reference>\n';
  if (xadesDigest !== undefined) {
    xml += `    <Reference Type="${XADES_REFERENCE}" URI="#SignedProperties">\n`
      + `      <DigestMethod Algorithm="${SHA256}"/>\n`
      + `      <DigestValue>${xadesDigest}</DigestValue>\n`
      + '    </Reference>\n';
  }
  xml += '  </SignedInfo>\n';
  const tree = parseXmlTree(xml);
  return tree === undefined ? undefined : Buffer.from(canonicalize(tree, false), 'utf8');
}

function verifies(hash: string, input: Buffer, key: KeyObject, signature: Buffer): boolean {
  try {
    return verifySignature(hash, input, key, signature);
  } catch {
    return false;
  }
}
