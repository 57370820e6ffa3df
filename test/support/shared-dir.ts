import path from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The read-only shared material (specification, IG packages, NHSN samples, conformance harness).
 * Never copied into the repository: read from SHARED_DIR, which defaults to ../shared beside the project.
 */
export function sharedDir(...parts: string[]): string {
  const base = process.env.SHARED_DIR ? path.resolve(process.env.SHARED_DIR) : path.resolve(projectRoot, '../shared');
  return path.join(base, ...parts);
}

export { projectRoot };
