#!/usr/bin/env node
/**
 * Offline FHIR validation from the command line (no database, no broker):
 *
 *   validate [--ig <package.tgz|folder>]... [--load <resource.json>]... [--profile <url>]...
 *            [--format json|text] [--no-cache] [--security-checks] [--no-example-urls] <file>...
 *   validate --harness <file> <profiles,comma,separated> <supporting,files,comma,separated>
 *
 * Prints one OperationOutcome per file (json), or one line per issue (text:
 * `severity location message`). Exit status 1 when any error or fatal issue was found.
 * --harness is the conformance harness's calling convention (../shared/conformance): exactly
 * one OperationOutcome JSON on stdout, whatever happens.
 */
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { CanonicalResource, ConformanceResourceSource } from '../domain/conformance-resources.js';
import { LayeredConformanceSource } from '../domain/engine/layered-source.js';
import { isErrorIssue, type ValidationOutcome } from '../domain/engine/outcome/issue.js';
import { Validator } from '../domain/engine/validator.js';
import { LocalTerminology } from '../domain/terminology/local-terminology.js';
import { loadCoreSearchParameters } from './core-search-parameters.js';

interface CliArgs {
  igs: string[];
  loads: string[];
  profiles: string[];
  format: 'json' | 'text';
  files: string[];
  harness: boolean;
  cache: boolean;
  securityChecks: boolean;
  allowExampleUrls: boolean;
}

/** Shown on --help and wrong arguments; the README's command-line section quotes both lines (a test keeps them equal). */
export const USAGE = `usage: fhir-validate [--ig <package.tgz|folder>]... [--load <resource.json>]... [--profile <url>]... [--format json|text] [--security-checks] [--no-example-urls] [--no-cache] <file>...
       fhir-validate --harness <file> <profiles> <supporting>`;

export function parseCliArgs(argv: readonly string[]): CliArgs | string {
  const args: CliArgs = { igs: [], loads: [], profiles: [], format: 'json', files: [], harness: false, cache: true, securityChecks: false, allowExampleUrls: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
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
        case '--security-checks': args.securityChecks = true; break;
        case '--no-example-urls': args.allowExampleUrls = false; break;
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
        default:
          if (a.startsWith('--')) return `unknown option ${a}\n${USAGE}`;
          args.files.push(a);
      }
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }
  if (args.files.length === 0) return USAGE;
  return args;
}

async function loadBaseSource(igs: readonly string[], cache: boolean): Promise<{ source: ConformanceResourceSource; warnings: string[] }> {
  const { loadDefinitions } = await import('../adapters/fhir-definitions/definition-cache.js');
  const loaded = await loadDefinitions({ packages: igs, cacheDir: cache ? undefined : false });
  const warnings = loaded.failures.map((f) => `cannot read package ${f.path}: ${f.error.message}`);
  return { source: loaded.index, warnings };
}

async function readResources(files: readonly string[]): Promise<{ resources: CanonicalResource[]; warnings: string[] }> {
  const resources: CanonicalResource[] = [];
  const warnings: string[] = [];
  for (const f of files) {
    try {
      const r = JSON.parse(await readFile(f, 'utf8'));
      if (r?.resourceType === 'Bundle' && Array.isArray(r.entry)) {
        for (const e of r.entry) if (e?.resource?.resourceType) resources.push(e.resource);
      } else if (r?.resourceType) {
        resources.push(r);
      } else {
        warnings.push(`${f}: not a FHIR resource`);
      }
    } catch (e) {
      warnings.push(`cannot load ${f}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { resources, warnings };
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
    const [{ source: base, warnings: baseWarnings }, { resources, warnings: loadWarnings }, searchParameters] = await Promise.all([
      loadBaseSource(args.igs, args.cache),
      readResources(args.loads),
      loadCoreSearchParameters(),
    ]);
    for (const w of [...baseWarnings, ...loadWarnings]) err(`warning: ${w}`);
    const source = new LayeredConformanceSource(resources, new LayeredConformanceSource(searchParameters, base));
    const validator = new Validator(source, new LocalTerminology(source), { securityChecks: args.securityChecks, allowExampleUrls: args.allowExampleUrls });
    let anyError = false;
    const outcomes: { file: string; outcome: ValidationOutcome }[] = [];
    for (const file of args.files) {
      let outcome: ValidationOutcome;
      try {
        const text = await readFile(file, 'utf8');
        outcome = await validator.validateAsync(text, { profiles: args.profiles });
      } catch (e) {
        outcome = failureOutcome(`Cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (outcome.issue.some(isErrorIssue)) anyError = true;
      outcomes.push({ file, outcome });
    }
    if (args.harness || (args.format === 'json' && outcomes.length === 1)) {
      out(JSON.stringify(outcomes[0].outcome, null, 2));
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
const invokedDirectly = entry !== '' && strip(entry) === strip(realpathSync(fileURLToPath(import.meta.url)));
if (invokedDirectly) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
