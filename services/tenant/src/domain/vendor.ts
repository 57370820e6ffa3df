import { ProblemCollector } from '#shared-kernel/domain/errors.js';
import { NAME_MAX_LENGTH } from './facility.js';

/** An EHR vendor; `authentication` describes how the vendor's systems authenticate (free text). */
export interface Vendor {
  readonly id: string;
  readonly name: string;
  readonly authentication: string | null;
}

export interface VendorVersion {
  readonly id: string;
  readonly vendorId: string;
  readonly version: string;
}

export function validateVendorInput(input: { name: string; authentication?: string | null }): { name: string; authentication: string | null } {
  const problems = new ProblemCollector();
  const name = (input.name ?? '').trim();
  if (name === '') problems.add('name', 'name is required');
  else if (name.length > NAME_MAX_LENGTH) problems.add('name', `name must be at most ${NAME_MAX_LENGTH} characters`);
  problems.throwIfAny();
  const authentication = input.authentication === undefined || input.authentication === null || input.authentication === '' ? null : input.authentication;
  return { name, authentication };
}

export function validateVendorVersionInput(input: { vendorId: string; version: string }): { vendorId: string; version: string } {
  const problems = new ProblemCollector();
  const vendorId = (input.vendorId ?? '').trim();
  const version = (input.version ?? '').trim();
  if (vendorId === '') problems.add('vendorId', 'vendorId is required');
  if (version === '') problems.add('version', 'version is required');
  else if (version.length > NAME_MAX_LENGTH) problems.add('version', `version must be at most ${NAME_MAX_LENGTH} characters`);
  problems.throwIfAny();
  return { vendorId, version };
}
