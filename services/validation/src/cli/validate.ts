#!/usr/bin/env node
/**
 * Offline FHIR validation from the command line (no database, no broker):
 *
 *   validate [--ig <package.tgz|folder>]... [--load <resource.json>]... [--profile <url>]...
 *            [--format json|text] [--no-cache] [--no-extension-pack] [--message-wording hapi|hl7] [settings] <file>...
 *   validate --harness <file> <profiles,comma,separated> <supporting,files,comma,separated> [--options <json>]
 *
 * Prints one OperationOutcome per file (json), or one line per issue (text:
 * `severity location message`). Exit status 1 when any error or fatal issue was found. Several
 * files can be validated in parallel (`--threads n` worker threads; default 1 = this thread), with
 * the same outcomes in the same order. Measured on 2 cores, a worker's warm-up (plans, JIT) costs
 * more than it saves below a few hundred files, hence one thread unless asked.
 * As the HL7 validator, it knows the core extension pack by default (the service's embedded
 * copy, see default-packages.ts); --no-extension-pack validates against R4 core and --ig only.
 *
 * Settings are the HL7 validator's, under the HL7 CLI's flag names (`-best-practice error`,
 * `-extension any`, `-assumeValidRestReferences`, ...; one dash or two): domain/engine/settings-input.ts
 * lists them, docs/validator-settings.md explains them next to HL7's. The --load files are also what
 * references resolve to (the CLI's fetcher, file-fetcher.ts) when a reference policy asks for it.
 * --harness is the conformance harness's calling convention (../shared/conformance): exactly
 * one OperationOutcome JSON on stdout, whatever happens; `--options` takes the check's settings as
 * the HL7 test manifest writes them (`{"best-practice":"Error","allow-comments":true}`).
 */
import { realpathSync } from 'node:fs';
import module from 'node:module';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import path from 'node:path';
import { isCanonicalResource, isFhirResource, type CanonicalResource, type ConformanceResourceSource, type FhirResource } from '../domain/ports/conformance-resources.js';
import { isArray, isObject } from '../domain/engine/json/json-value.js';
import { isErrorIssue, type ValidationOutcome } from '../domain/engine/outcome/issue.js';
import type { Validator } from '../domain/engine/validator.js';
import type { ValidationSettings } from '../domain/engine/validator-options.js';
import { applyFlag, flagArity, HL7_CLI_DEFAULTS, settingForFlag, settingsFromManifest, SettingsInputError } from '../domain/engine/settings-input.js';
import { defaultPackageFiles } from './default-packages.js';
import { harnessProfiles } from './harness-profiles.js';

// Start-up: compiling the engine's modules is a good part of a cold start, so V8's compiled code is
// kept on disk between runs (Node's compile cache, in the temporary directory). The engine is
// imported only after this (dynamic imports below), and only by a run that validates.
module.enableCompileCache?.();

interface CliArgs {
  igs: string[];
  loads: string[];
  profiles: string[];
  format: 'json' | 'text';
  files: string[];
  harness: boolean;
  cache: boolean;
  /** The HL7 validator's settings given by flags or --options (validator-options.ts). */
  settings: ValidationSettings;
  /** Manifest keys of --options that change nothing here, with why (said on stderr). */
  ignoredOptions: string[];
  /** Load the core extension pack (hl7.fhir.uv.extensions) as well as the --ig packages. */
  extensionPack: boolean;
  /** Worker threads for several files (at most one per file); default and 1 = this thread. */
  threads: number | undefined;
  /** Wording of the issues' texts (docs/message-wording.md); the ids are the same in both. */
  messageWording: 'hapi' | 'hl7';
}

/** Shown on --help and wrong arguments; the README's command-line section quotes both lines (a test keeps them equal). */
export const USAGE = `usage: fhir-validate [--ig <package.tgz|folder>]... [--load <resource.json>]... [--profile <url>]... [--format json|text] [--no-extension-pack] [--no-cache] [--threads n] [--message-wording hapi|hl7] [settings, see docs/validator-settings.md] <file>...
       fhir-validate --harness <file> <profiles> <supporting> [--options <json>]`;

export function parseCliArgs(argv: readonly string[]): CliArgs | string {
  // the HL7 CLI's defaults, then the flags and options over them
  const settings: Record<string, unknown> = { ...HL7_CLI_DEFAULTS };
  const args: CliArgs = { igs: [], loads: [], profiles: [], format: 'json', files: [], harness: false, cache: true, settings, ignoredOptions: [], extensionPack: true, threads: undefined, messageWording: 'hapi' };
  for (let i = 0, a = argv[0]; a !== undefined; a = argv[++i]) {
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    try {
      switch (a) {
        case '--ig': args.igs.push(value()); break;
        case '--load': args.loads.push(value()); break;
        case '--profile': args.profiles.push(value()); break;
        case '--format': {
          const f = value();
          if (f !== 'json' && f !== 'text') return `unknown format '${f}'`;
          args.format = f;
          break;
        }
        case '--no-cache': args.cache = false; break;
        case '--threads': {
          const n = Number(value());
          if (!Number.isInteger(n) || n < 1) return '--threads needs a whole number of at least 1';
          args.threads = n;
          break;
        }
        case '--message-wording': {
          const w = value();
          if (w !== 'hapi' && w !== 'hl7') return `unknown message wording '${w}' (hapi or hl7)`;
          args.messageWording = w;
          break;
        }
        // earlier names, kept: the same as -allow-example-urls false and HL7's -check-references
        case '--no-example-urls': settings.allowExampleUrls = false; break;
        case '-check-references':
        case '--check-references': settings.referencePolicy = 'CHECK_VALID'; break;
        case '--no-extension-pack': args.extensionPack = false; break;
        case '--options': {
          const text = value();
          let options: unknown;
          try {
            options = JSON.parse(text);
          } catch {
            return `--options needs a JSON object, not ${text}`;
          }
          if (!isObject(options)) return `--options needs a JSON object, not ${text}`;
          const read = settingsFromManifest(options);
          Object.assign(settings, read.settings);
          args.ignoredOptions.push(...read.ignored.map((x) => `option ${x.key} has no effect: ${x.reason}`));
          break;
        }
        case '--harness': {
          args.harness = true;
          const file = argv[++i];
          if (!file) return '--harness needs <file> <profiles> <supporting>';
          args.files.push(file);
          const profiles = argv[++i] ?? '';
          const supporting = argv[++i] ?? '';
          args.profiles.push(...profiles.split(',').filter(Boolean));
          args.loads.push(...supporting.split(',').filter(Boolean));
          break;
        }
        case '-h':
        case '--help':
          return USAGE;
        default: {
          const spec = a.startsWith('-') ? settingForFlag(a) : undefined;
          if (spec) {
            const values: string[] = [];
            for (let n = flagArity(spec); n > 0; n--) values.push(value());
            applyFlag(settings, spec, values);
            break;
          }
          if (a.startsWith('-') && a !== '-') return `unknown option ${a}\n${USAGE}`;
          args.files.push(a);
        }
      }
    } catch (e) {
      if (e instanceof SettingsInputError) return e.message;
      return e instanceof Error ? e.message : String(e);
    }
  }
  if (args.files.length === 0) return USAGE;
  return args;
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

/** What a validator of the CLI is built from (plain data: it is also sent to the worker threads). */
export type ValidatorSetup = Pick<CliArgs, 'igs' | 'loads' | 'cache' | 'settings' | 'extensionPack' | 'messageWording'>;

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
  const fetcher = new InMemoryResourceFetcher(loose);
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

function textLines(file: string, outcome: ValidationOutcome): string[] {
  const lines = [`${file}: ${outcome.issue.filter(isErrorIssue).length} error(s), ${outcome.issue.length} issue(s)`];
  for (const i of outcome.issue) {
    const line = i.extension?.find((e) => e.url.endsWith('issue-line'))?.valueInteger;
    lines.push(`${i.severity} ${i.expression?.[0] ?? '(document)'}${line ? ` [line ${line}]` : ''} ${i.details.text}`);
  }
  return lines;
}

function failureOutcome(message: string): ValidationOutcome {
  return { resourceType: 'OperationOutcome', issue: [{ severity: 'fatal', code: 'exception', details: { text: message }, diagnostics: message }] };
}

export async function main(argv: readonly string[], out: (s: string) => void = (s) => process.stdout.write(s + '\n'), err: (s: string) => void = (s) => process.stderr.write(s + '\n')): Promise<number> {
  const args = parseCliArgs(argv);
  if (typeof args === 'string') {
    err(args);
    return 2;
  }
  try {
    // Several files: one thread per core (this one and workers, at most one per file), each with the
    // validator this thread would build; the outcomes come back in the order of the files. One file
    // (the harness too): this thread, no worker start-up.
    const threads = args.harness ? 1 : Math.min(args.files.length, args.threads ?? 1);
    let results: ValidationOutcome[];
    if (threads > 1) {
      const { validateInParallel } = await import('./parallel-validation.js');
      const parallel = await validateInParallel(args, args.files, args.profiles, threads);
      for (const w of [...args.ignoredOptions, ...parallel.warnings]) err(`warning: ${w}`);
      results = parallel.outcomes;
    } else {
      const { validator, warnings, loaded } = await buildCliValidator(args);
      for (const w of [...args.ignoredOptions, ...warnings]) err(`warning: ${w}`);
      // the harness's profiles as the HL7 test runner applies them (from the StructureDefinition of their source file)
      const profiles = args.harness ? harnessProfiles(args.profiles, loaded) : args.profiles;
      results = [];
      for (const file of args.files) results.push(await validateFile(validator, file, profiles));
    }
    const outcomes = args.files.flatMap((file, i) => {
      const outcome = results[i];
      return outcome ? [{ file, outcome }] : []; // one outcome per file
    });
    const anyError = results.some((outcome) => outcome.issue.some(isErrorIssue));
    if (args.harness || (args.format === 'json' && outcomes.length === 1)) {
      out(JSON.stringify(outcomes[0]?.outcome, null, 2));
    } else if (args.format === 'json') {
      out(JSON.stringify({ resourceType: 'Bundle', type: 'collection', entry: outcomes.map((o) => ({ fullUrl: 'file://' + path.resolve(o.file), resource: o.outcome })) }, null, 2));
    } else {
      for (const o of outcomes) for (const l of textLines(o.file, o.outcome)) out(l);
    }
    return anyError ? 1 : 0;
  } catch (e) {
    const message = `Validation failed: ${e instanceof Error ? e.message : String(e)}`;
    if (args.harness || args.format === 'json') out(JSON.stringify(failureOutcome(message)));
    else err(message);
    return 1;
  }
}

// run when executed (also through a package.json `bin` symlink), not when imported by tests
const strip = (p: string) => p.replace(/\.[cm]?[jt]s$/, '');
const entry = process.argv[1] ? (() => { try { return realpathSync(process.argv[1]); } catch { return path.resolve(process.argv[1]); } })() : '';
// Not in a worker thread: the CLI's workers import this module and see the same process.argv.
const invokedDirectly = isMainThread && entry !== '' && strip(entry) === strip(realpathSync(fileURLToPath(import.meta.url)));
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (error: unknown) => { console.error(error); process.exitCode = 2; },
  );
}
