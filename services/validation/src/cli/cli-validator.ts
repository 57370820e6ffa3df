/**
 * The CLI's validator and how it validates one file: what validate.ts runs on this thread, and what
 * each worker thread of a parallel run (validate-worker.ts, started by parallel-validation.ts) builds
 * the same way, so the outcomes do not depend on the thread. Its own module so that the CLI's entry
 * and its parallel runner both import it without importing each other.
 */
import module from 'node:module';
import { readFile } from 'node:fs/promises';
import { isCanonicalResource, isFhirResource, type CanonicalResource, type ConformanceResourceSource, type FhirResource } from '../domain/ports/conformance-resources.js';
import { isArray, isObject } from '../domain/engine/json/json-value.js';
import type { ValidationOutcome } from '../domain/engine/outcome/issue.js';
import type { Validator } from '../domain/engine/validator.js';
import type { ValidationSettings } from '../domain/engine/validator-options.js';
import { defaultPackageFiles } from './default-packages.js';

// Start-up: compiling the engine's modules is a good part of a cold start, so V8's compiled code is
// kept on disk between runs (Node's compile cache, in the temporary directory), in the CLI's thread and
// in each of its workers (both import this module first). The engine is imported only after this
// (dynamic imports below), and only by a run that validates.
module.enableCompileCache?.();

/** What a validator of the CLI is built from (plain data: it is also sent to the worker threads). */
export interface ValidatorSetup {
  igs: string[];
  loads: string[];
  cache: boolean;
  /** The HL7 validator's settings given by flags or --options (validator-options.ts). */
  settings: ValidationSettings;
  /** Load the core extension pack (hl7.fhir.uv.extensions) as well as the --ig packages. */
  extensionPack: boolean;
  /** Wording of the issues' texts (docs/message-wording.md); the ids are the same in both. */
  messageWording: 'hapi' | 'hl7';
  /** Validate with the HL7 test runner's fetcher (`--harness`; test-runner-fetcher.ts), not the CLI's. */
  testRunnerFetcher?: boolean;
}

async function loadBaseSource(igs: readonly string[], cache: boolean, extensionPack: boolean): Promise<{ source: ConformanceResourceSource; warnings: string[] }> {
  const { loadDefinitions } = await import('../adapters/fhir-definitions/definition-cache.js');
  const defaults = extensionPack ? await defaultPackageFiles() : { files: [], warnings: [] };
  const loaded = await loadDefinitions({ packages: [...defaults.files, ...igs], cacheDir: cache ? undefined : false });
  const warnings = [...defaults.warnings, ...loaded.failures.map((f) => `cannot read package ${f.path}: ${f.error.message}`)];
  return { source: loaded.index, warnings };
}

/** The --load files' texts (read while the definitions load; XML ones need the definitions to be shaped). */
async function readTexts(files: readonly string[]): Promise<{ file: string; text?: string; error?: string }[]> {
  return Promise.all(files.map(async (file) => {
    try {
      return { file, text: await readFile(file, 'utf8') };
    } catch (e) {
      return { file, error: e instanceof Error ? e.message : String(e) };
    }
  }));
}

/**
 * The --load files' conformance resources (JSON or XML; Bundles give their entries), and every
 * resource read (for the fetcher).
 */
function resourcesOf(texts: { file: string; text?: string; error?: string }[], parse: (text: string) => unknown): { resources: CanonicalResource[]; loose: FhirResource[]; warnings: string[] } {
  const resources: CanonicalResource[] = [];
  const loose: FhirResource[] = [];
  const warnings: string[] = [];
  for (const { file: f, text, error } of texts) {
    try {
      if (text === undefined) throw new Error(error);
      const r = parse(text);
      if (isFhirResource(r) && r.resourceType === 'Bundle' && isArray(r.entry)) {
        loose.push(r);
        for (const e of r.entry) {
          const resource = isObject(e) ? e.resource : undefined;
          if (isCanonicalResource(resource) && resource.resourceType) resources.push(resource);
        }
      } else if (isCanonicalResource(r) && r.resourceType) {
        resources.push(r);
      } else {
        warnings.push(`${f}: not a FHIR resource`);
      }
    } catch (e) {
      warnings.push(`cannot load ${f}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { resources, loose: [...loose, ...resources], warnings };
}

async function loadEngine() {
  const [{ LayeredConformanceSource }, { LocalTerminology }, { Validator }, { setMessageWording }, { InMemoryResourceFetcher }, { PlanRegistry }, { parseResourceText }] = await Promise.all([
    import('../domain/engine/layered-source.js'), import('../domain/terminology/local-terminology.js'), import('../domain/engine/validator.js'),
    import('../domain/engine/wording.js'), import('../domain/ports/resource-fetcher.js'),
    import('../domain/engine/plan/plan-registry.js'), import('../domain/engine/xml/resource-text.js'),
  ]);
  return { LayeredConformanceSource, LocalTerminology, Validator, setMessageWording, InMemoryResourceFetcher, PlanRegistry, parseResourceText };
}


/** The CLI's validator (this thread's, or each worker's: the same, so the outcomes are too), and the warnings of building it. */
export async function buildCliValidator(setup: ValidatorSetup): Promise<{ validator: Validator; warnings: string[]; loaded: readonly CanonicalResource[] }> {
  const [{ source: base, warnings: baseWarnings }, texts, searchParameters, engine] = await Promise.all([
    loadBaseSource(setup.igs, setup.cache, setup.extensionPack),
    readTexts(setup.loads),
    import('./core-search-parameters.js').then(async (m) => ({ file: await m.coreSearchParametersFile(), LazyCoreSearchParameters: m.LazyCoreSearchParameters })),
    loadEngine(),
  ]);
  const { LayeredConformanceSource, LocalTerminology, Validator, setMessageWording, InMemoryResourceFetcher, PlanRegistry, parseResourceText } = engine;
  // XML files are shaped with the core definitions (the base source's)
  const shapes = new PlanRegistry(base);
  const { resources, loose, warnings: loadWarnings } = resourcesOf(texts, (text) => parseResourceText(text, shapes));
  // the wording is the thread's (this one, or each worker's when validating in parallel)
  setMessageWording(setup.messageWording ?? 'hapi');
  const coreSearchParameters = new searchParameters.LazyCoreSearchParameters(searchParameters.file, base);
  const source = new LayeredConformanceSource(resources, coreSearchParameters);
  // the --load files are also what references resolve to when a reference policy asks (HL7's fetcher)
  const fetcher = setup.testRunnerFetcher ? new (await import('./test-runner-fetcher.js')).TestRunnerFetcher(loose) : new InMemoryResourceFetcher(loose);
  const validator = new Validator(source, new LocalTerminology(source), { ...setup.settings, fetcher });
  return { validator, warnings: [...baseWarnings, ...loadWarnings], loaded: resources };
}

/** One file's outcome; a file that cannot be read is a fatal issue, never a throw. */
export async function validateFile(validator: Validator, file: string, profiles: readonly string[]): Promise<ValidationOutcome> {
  try {
    const text = await readFile(file, 'utf8');
    return await validator.validateAsync(text, { profiles: [...profiles] });
  } catch (e) {
    return failureOutcome(`Cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** An outcome of one fatal issue (a file that cannot be read, a run that failed). */
export function failureOutcome(message: string): ValidationOutcome {
  return { resourceType: 'OperationOutcome', issue: [{ severity: 'fatal', code: 'exception', details: { text: message }, diagnostics: message }] };
}
