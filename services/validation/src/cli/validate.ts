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
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import path from 'node:path';
// Before the engine's modules: cli-validator.ts turns on the compile cache (it says why).
import { buildCliValidator, failureOutcome, validateFile, type ValidatorSetup } from './cli-validator.js';
import { isObject } from '../domain/engine/json/json-value.js';
import { isErrorIssue, type ValidationOutcome } from '../domain/engine/outcome/issue.js';
import { applyFlag, flagArity, HL7_CLI_DEFAULTS, settingForFlag, settingsFromManifest, SettingsInputError } from '../domain/engine/settings-input.js';
import { harnessProfiles } from './harness-profiles.js';

/** The command line: what the validator is built from (ValidatorSetup), and what to validate and print. */
interface CliArgs extends ValidatorSetup {
  profiles: string[];
  format: 'json' | 'text';
  files: string[];
  harness: boolean;
  /** Manifest keys of --options that change nothing here, with why (said on stderr). */
  ignoredOptions: string[];
  /** Worker threads for several files (at most one per file); default and 1 = this thread. */
  threads: number | undefined;
}

/** Shown on --help and wrong arguments; the README's command-line section quotes both lines (a test keeps them equal). */
export const USAGE = `usage: fhir-validate [--ig <package.tgz|folder>]... [--load <resource.json>]... [--profile <url>]... [--format json|text] [--no-extension-pack] [--no-cache] [--threads n] [--message-wording hapi|hl7] [settings, see docs/validator-settings.md] <file>...
       fhir-validate --harness <file> <profiles> <supporting> [--options <json>]`;

export function parseCliArgs(argv: readonly string[]): CliArgs | string {
  // the HL7 CLI's defaults, then the flags and options over them
  const settings: Record<string, unknown> = { ...HL7_CLI_DEFAULTS };
  const args: CliArgs = { igs: [], loads: [], profiles: [], format: 'json', files: [], harness: false, cache: true, settings, ignoredOptions: [], extensionPack: true, threads: undefined, messageWording: 'hapi' };
  let manifestFetcher: 'test-runner' | 'standalone' = 'test-runner';
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
          manifestFetcher = read.fetcher;
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
  // the harness validates as the HL7 test runner does: with the runner's own fetcher unless the check names `standalone`
  args.testRunnerFetcher = args.harness && manifestFetcher === 'test-runner';
  return args;
}

function textLines(file: string, outcome: ValidationOutcome): string[] {
  const lines = [`${file}: ${outcome.issue.filter(isErrorIssue).length} error(s), ${outcome.issue.length} issue(s)`];
  for (const i of outcome.issue) {
    const line = i.extension?.find((e) => e.url.endsWith('issue-line'))?.valueInteger;
    lines.push(`${i.severity} ${i.expression?.[0] ?? '(document)'}${line ? ` [line ${line}]` : ''} ${i.details.text}`);
  }
  return lines;
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
