/**
 * A Bundle's digital signature (Bundle.signature), verified as the HL7 validator verifies it: a
 * JWS (`sigFormat` application/jose, the compact serialization, base64 in `data`) whose header
 * carries the signer's certificate chain (`x5c`), over the Bundle's canonical JSON form named by
 * `targetFormat` (`…;canonicalization=<method>`, or the JWS header's `canon`).
 *
 * The validator composes the content to sign itself (json/canonical-json.ts) and
 * - checks the JWS signature over that content with the first certificate's public key (as a
 *   detached JWS is checked: header, then the content): when it fails, "did not verify";
 * - when the JWS carries its own payload (not detached), compares the two: when they differ, the
 *   signature cannot be valid for this Bundle, and the issue gives both sizes.
 *
 * Nothing is said where the signature cannot be judged without guessing: another signature format
 * (an XML DSig, which the HL7 validator checks against FHIR's canonical XML), a JWS without a
 * certificate (HL7 would look its key up in a configured trust store or the signer's JWKS, neither
 * of which this engine has), a canonicalization or an algorithm this does not know, a narrative
 * this cannot write back as HL7 does, data that is not a JWS. The certificate itself (its validity
 * period, its chain, whether its subject is Signature.who) is not judged here.
 */
import { constants, verify as verifySignature, X509Certificate, type KeyObject } from 'node:crypto';
import type { NodeContext } from '../context/node-context.js';
import { canonicalJson, isJsonCanonicalization, type JsonCanonicalization } from '../json/canonical-json.js';
import { isObject } from '../json/json-value.js';

/** JWS algorithms (RFC 7518) and how node:crypto checks them. */
const ALGORITHMS: Readonly<Record<string, { digest: string | null; pss?: boolean; ecdsa?: boolean }>> = {
  RS256: { digest: 'sha256' }, RS384: { digest: 'sha384' }, RS512: { digest: 'sha512' },
  PS256: { digest: 'sha256', pss: true }, PS384: { digest: 'sha384', pss: true }, PS512: { digest: 'sha512', pss: true },
  ES256: { digest: 'sha256', ecdsa: true }, ES384: { digest: 'sha384', ecdsa: true }, ES512: { digest: 'sha512', ecdsa: true },
  EdDSA: { digest: null },
};

const CANONICALIZATION_PARAM = 'canonicalization=';

/** A JWS compact serialization, its parts decoded where needed. */
interface Jws {
  /** The protected header as written (base64url), the first part of the signing input. */
  readonly headerText: string;
  readonly header: Record<string, unknown>;
  /** The embedded payload; undefined for a detached JWS. */
  readonly payload: Buffer | undefined;
  readonly signature: Buffer;
}

/** Checks the Bundle's signature; the caller calls it only when Bundle.signature is present. */
export function checkBundleSignature(ctx: NodeContext, bundle: Record<string, unknown>, signature: unknown): void {
  if (!isObject(signature) || signature.sigFormat !== 'application/jose' || typeof signature.data !== 'string') return;
  const jws = readJws(signature.data);
  if (jws === undefined) return;
  const method = canonicalizationOf(signature.targetFormat, jws.header.canon);
  if (method === undefined) return;
  const key = signerKey(jws.header.x5c);
  const algorithm = typeof jws.header.alg === 'string' && Object.hasOwn(ALGORITHMS, jws.header.alg) ? ALGORITHMS[jws.header.alg] : undefined;
  if (key === undefined || algorithm === undefined) return;
  const run = ctx.run;
  const text = canonicalJson(bundle, method, (container, k) => (Array.isArray(container) ? run.rawNumber(container, {}, '', k as number) : run.rawNumber(undefined, container as Record<string, unknown>, k as string, -1)));
  if (text === undefined) return;
  const content = Buffer.from(text, 'utf8');
  const input = Buffer.from(`${jws.headerText}.${content.toString('base64url')}`, 'ascii');
  if (!verifies(input, jws.signature, key, algorithm)) ctx.error('SIGNATURE_NOT_VERIFIED', []);
  if (jws.payload !== undefined && !jws.payload.equals(content)) ctx.error('SIGNATURE_CONTENT_MISMATCH', [groupDigits(content.length), groupDigits(jws.payload.length)]);
}

/** The JWS in Signature.data (base64 of the compact serialization); undefined when it is not one. */
function readJws(data: string): Jws | undefined {
  const compact = Buffer.from(data, 'base64').toString('ascii').trim();
  const parts = compact.split('.');
  if (parts.length !== 3) return undefined;
  const [headerText, payloadText, signatureText] = parts as [string, string, string];
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

/** The canonicalization named by targetFormat (`…;canonicalization=<method>`), else by the JWS header's `canon`. */
function canonicalizationOf(targetFormat: unknown, canon: unknown): JsonCanonicalization | undefined {
  let method: string | undefined;
  if (typeof targetFormat === 'string') {
    const at = targetFormat.indexOf(CANONICALIZATION_PARAM);
    if (at >= 0) method = targetFormat.slice(at + CANONICALIZATION_PARAM.length).split(';')[0]?.trim();
  }
  if (method === undefined && typeof canon === 'string') method = canon;
  return method !== undefined && isJsonCanonicalization(method) ? method : undefined;
}

/** The public key of the first certificate of the x5c chain (base64 DER); undefined when there is none. */
function signerKey(x5c: unknown): KeyObject | undefined {
  if (!Array.isArray(x5c) || typeof x5c[0] !== 'string') return undefined;
  try {
    return new X509Certificate(Buffer.from(x5c[0], 'base64')).publicKey;
  } catch {
    return undefined;
  }
}

function verifies(input: Buffer, signature: Buffer, key: KeyObject, algorithm: { digest: string | null; pss?: boolean; ecdsa?: boolean }): boolean {
  try {
    if (algorithm.pss) return verifySignature(algorithm.digest, input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, signature);
    if (algorithm.ecdsa) return verifySignature(algorithm.digest, input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    return verifySignature(algorithm.digest, input, key, signature);
  } catch {
    // a key of the wrong kind for the algorithm: the signature does not verify with it
    return false;
  }
}

/** A count as the HL7 validator's messages print one (`13,051`). */
function groupDigits(n: number): string {
  const digits = String(n);
  let out = '';
  for (let i = 0; i < digits.length; i++) out += (i > 0 && (digits.length - i) % 3 === 0 ? ',' : '') + digits[i];
  return out;
}
