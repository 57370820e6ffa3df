/**
 * A Bundle's digital signature (Bundle.signature), checked as the HL7 validator's BundleValidator
 * checks it. An XML DSig (`application/pkcs7-signature`) goes to bundle-signature-dsig.ts; this
 * module checks a JWS (`sigFormat` application/jose, or no sigFormat and data whose header names
 * an algorithm): the compact serialization, base64 in `data` (or as it is), whose header carries
 * the signer's certificate chain (`x5c`).
 *
 * - The signing time the header states (JAdES `sigT`, else `iat`) must be Signature.when, which
 *   must be there.
 * - The content signed is the Bundle's canonical form by the method the header's `canon` names,
 *   else targetFormat's, else the default (bundle-signature-content.ts: JSON or XML; a method
 *   ending `#document` leaves out Bundle.id and Bundle.meta as well as the signature).
 * - The validator composes that content itself and checks the JWS signature over it with the
 *   first certificate's public key, as a detached JWS is checked (header, then that content, in
 *   place of whatever payload the JWS carries). When it does not verify, it says so, and when the
 *   JWS carries a payload other than that content, that the signature cannot be valid, with both
 *   sizes.
 *
 * Not judged here (no issue rather than a guess): a JWS without a certificate (HL7 looks its
 * `kid` up in a configured trust store), an algorithm node:crypto does not check, content this
 * cannot compose as HL7 does (a narrative it cannot write back), a header that is not JSON, and
 * other formats (images, PDF). HL7's hints and warnings (who the certificate names, the purpose,
 * an embedded payload present) are not reported.
 */
import { constants, verify as verifySignature, X509Certificate, type KeyObject } from 'node:crypto';
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';
import { checkXmlSignature } from './bundle-signature-dsig.js';
import { groupDigits, signedContent, signedContentMethod } from './bundle-signature-content.js';

/**
 * JWS algorithms (RFC 7518) with an RSA or EC key, the keys HL7 verifies with (it cannot read
 * another kind of key from a certificate), and how node:crypto checks them.
 */
const ALGORITHMS: Readonly<Record<string, { digest: string; pss?: boolean; ecdsa?: boolean }>> = {
  RS256: { digest: 'sha256' }, RS384: { digest: 'sha384' }, RS512: { digest: 'sha512' },
  PS256: { digest: 'sha256', pss: true }, PS384: { digest: 'sha384', pss: true }, PS512: { digest: 'sha512', pss: true },
  ES256: { digest: 'sha256', ecdsa: true }, ES384: { digest: 'sha384', ecdsa: true }, ES512: { digest: 'sha512', ecdsa: true },
};

const JOSE = 'application/jose';
const XML_DSIG = 'application/pkcs7-signature';

/** A JWS compact serialization, its parts decoded where needed. */
interface Jws {
  /** The protected header as written (base64url), the first part of the signing input. */
  readonly headerText: string;
  readonly header: Record<string, unknown>;
  /** The embedded payload; undefined for a detached JWS. */
  readonly payload: Buffer | undefined;
  readonly signature: Buffer;
}

/** Checks the Bundle's signature (HL7's order of issues); the caller calls it only when Bundle.signature is present. */
export function checkBundleSignature(ctx: NodeContext, bundle: Record<string, unknown>, signature: unknown): void {
  if (!isObject(signature) || typeof signature.data !== 'string') return;
  const sigFormat = typeof signature.sigFormat === 'string' && signature.sigFormat !== '' ? signature.sigFormat : undefined;
  if (sigFormat === XML_DSIG) {
    checkXmlSignature(ctx, bundle, signature, signature.data);
    return;
  }
  // no sigFormat: HL7 takes base64 data whose JWS header names an algorithm for a JWS
  if (sigFormat === undefined ? !looksLikeJws(signature.data) : sigFormat !== JOSE) return;
  let compact: string;
  if (isBase64(signature.data)) {
    compact = Buffer.from(signature.data, 'base64').toString('latin1').trim();
  } else if (signature.data.split('.').length === 3) {
    // the JWS itself rather than its base64: HL7 says so, and reads it
    ctx.error('BUNDLE_SIGNATURE_CHECKED_DATA_B64', []);
    compact = signature.data;
  } else {
    ctx.error('BUNDLE_SIGNATURE_NOT_CHECKED_DATA_B64', []);
    return;
  }
  const jws = readJws(compact);
  if (jws === undefined) return;

  // 1. the signature time: the header's (JAdES sigT, else iat) is Signature.when
  const sigT = signatureTime(jws.header);
  const when = typeof signature.when === 'string' ? signature.when : undefined;
  if (signature.when === undefined) ctx.error('BUNDLE_SIGNATURE_NO_WHEN', []);
  else if (sigT !== undefined && sigT !== when) ctx.error('BUNDLE_SIGNATURE_HEADER_WHEN_MISMATCH', [sigT, when ?? '']);

  // 2. the canonicalization: the header's canon, else targetFormat's, else the default for the Bundle's type
  const how = signedContentMethod(jws.header.canon, signature.targetFormat, bundle.type);
  // 4. the signer's key: from the certificate in the header (a kid alone names a key in a trust store this has not)
  const key = signerKey(jws.header.x5c);
  const algorithm = typeof jws.header.alg === 'string' && Object.hasOwn(ALGORITHMS, jws.header.alg) ? ALGORITHMS[jws.header.alg] : undefined;
  if (key === undefined || algorithm === undefined) return;
  const content = signedContent(ctx, bundle, how);
  if (content === undefined) return;
  // the JWS with the content composed here as its payload, whatever payload it carries
  const input = Buffer.from(`${jws.headerText}.${content.toString('base64url')}`, 'ascii');
  if (verifies(input, jws.signature, key, algorithm)) return;
  ctx.error('BUNDLE_SIGNATURE_SIG_FAIL_CERT', []);
  if (jws.payload !== undefined && !jws.payload.equals(content)) ctx.error('BUNDLE_SIGNATURE_PAYLOAD_MISMATCH', [groupDigits(content.length), groupDigits(jws.payload.length)]);
}

// linear: anchored, one character class
const isBase64 = (data: string): boolean => /^[A-Za-z0-9+/=\s]+$/.test(data);

/** Whether base64 data holds a JWS whose header names an algorithm (how HL7 recognizes one without a sigFormat). */
function looksLikeJws(data: string): boolean {
  if (!isBase64(data)) return false;
  const parts = Buffer.from(data, 'base64').toString('latin1').trim().split('.');
  try {
    const header: unknown = JSON.parse(Buffer.from(parts.length === 3 ? (parts[0] ?? '') : parts.join('.'), parts.length === 3 ? 'base64url' : 'latin1').toString('utf8'));
    return isObject(header) && header.alg !== undefined;
  } catch {
    return false;
  }
}

/** The signing time the JWS header states (JAdES `sigT`, else `iat`), as an instant in HL7's form. */
function signatureTime(header: Record<string, unknown>): string | undefined {
  const sigT = header.sigT;
  if (typeof sigT === 'string' && !/^-?\d+$/.test(sigT) /* linear: anchored, one class */) return sigT;
  const seconds = typeof sigT === 'number' || typeof sigT === 'string' ? Number(sigT) : typeof header.iat === 'number' || typeof header.iat === 'string' ? Number(header.iat) : Number.NaN;
  if (!Number.isInteger(seconds)) return undefined;
  const date = new Date(seconds * 1000);
  // Java's ISO_INSTANT: no fraction when it is zero
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace('.000Z', 'Z');
}

/** The JWS of a compact serialization; undefined when it is not one. */
function readJws(compact: string): Jws | undefined {
  const parts = compact.split('.');
  if (parts.length !== 3) return undefined;
  const [headerText = '', payloadText = '', signatureText = ''] = parts;
  // linear: anchored, one character class
  const base64url = /^[A-Za-z0-9_-]*$/;
  if (!base64url.test(headerText) || !base64url.test(payloadText) || !base64url.test(signatureText) || signatureText === '') return undefined;
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(headerText, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(header)) return undefined;
  return { headerText, header, payload: payloadText === '' ? undefined : Buffer.from(payloadText, 'base64url'), signature: Buffer.from(signatureText, 'base64url') };
}

/** The public key of the first certificate of the x5c chain (base64 DER); undefined when there is none. */
function signerKey(x5c: unknown): KeyObject | undefined {
  if (!Array.isArray(x5c) || typeof x5c[0] !== 'string') return undefined;
  try {
    const key = new X509Certificate(Buffer.from(x5c[0], 'base64')).publicKey;
    return key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'ec' || key.asymmetricKeyType === 'rsa-pss' ? key : undefined;
  } catch {
    return undefined;
  }
}

function verifies(input: Buffer, signature: Buffer, key: KeyObject, algorithm: { digest: string; pss?: boolean; ecdsa?: boolean }): boolean {
  try {
    if (algorithm.pss) return verifySignature(algorithm.digest, input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, signature);
    if (algorithm.ecdsa) return verifySignature(algorithm.digest, input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    return verifySignature(algorithm.digest, input, key, signature);
  } catch {
    // a key of the wrong kind for the algorithm: the signature does not verify with it
    return false;
  }
}
