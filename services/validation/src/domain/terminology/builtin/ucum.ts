import { createRequire } from 'node:module';

/** UCUM units (http://unitsofmeasure.org) through the NLM's UCUM library (a pure function, no I/O). */
interface UcumValidation {
  status: 'valid' | 'invalid' | 'error';
  ucumCode: string | null;
  msg: string[];
  unit?: { code: string; name: string };
}
interface UcumUtils {
  validateUnitString(unit: string, suggest?: boolean): UcumValidation;
  convertUnitTo(fromUnit: string, fromValue: number, toUnit: string): { status: 'succeeded' | 'failed' | 'error'; toVal?: number | null };
}

let utils: UcumUtils | undefined;
const verdicts = new Map<string, UcumCheck>();
const MAX_REMEMBERED_VERDICTS = 10_000;

/**
 * The library writes to the console when a unit string makes its parser throw ("Unit requested for
 * unit string chewable tablet.request unsuccessful; ..."): on the CLI's stdout that breaks the
 * OperationOutcome JSON. Its calls are synchronous, so console.log is muted for their duration only.
 */
function quietly<T>(call: () => T): T {
  const log = console.log;
  console.log = () => undefined;
  try {
    return call();
  } finally {
    console.log = log;
  }
}

// The package is CommonJS without type declarations; require() gives its exports the same way under tsx and node.
function loadUcum(): UcumUtils {
  const ucumPackage = createRequire(import.meta.url)('@lhncbc/ucum-lhc') as { UcumLhcUtils: { getInstance(): UcumUtils } };
  const library = ucumPackage.UcumLhcUtils.getInstance();
  return {
    validateUnitString: (unit, suggest) => quietly(() => library.validateUnitString(unit, suggest)),
    convertUnitTo: (fromUnit, fromValue, toUnit) => quietly(() => library.convertUnitTo(fromUnit, fromValue, toUnit)),
  };
}

/**
 * The UCUM library, loaded on first use (its unit tables are big and most validations never need
 * them); the one loader of the service: unit checks, the canonical filter, quantity conversion.
 */
export function ucumLibrary(): UcumUtils {
  utils ??= loadUcum();
  return utils;
}

export type UcumCheck = { valid: true } | { valid: false; reason: string };

/**
 * The UCUM library's parser backtracks: its cost grows with the square of a long digit run (20,000
 * digits take seconds). No real unit comes near this length, so longer codes are refused unparsed.
 */
export const MAX_UCUM_CODE_LENGTH = 256;

export function checkUcumUnit(code: string): UcumCheck {
  if (code.length > MAX_UCUM_CODE_LENGTH) return { valid: false, reason: `the unit is longer than ${MAX_UCUM_CODE_LENGTH} characters` };
  const known = verdicts.get(code);
  if (known) return known;
  utils ??= loadUcum();
  let verdict: UcumCheck;
  try {
    const result = utils.validateUnitString(code);
    // ucumCode differing from the input means the library "corrected" it: the given text is not UCUM.
    verdict = result.status === 'valid' && result.ucumCode === code
      ? { valid: true }
      : { valid: false, reason: result.msg.join('; ') || 'not a valid UCUM unit' };
  } catch (error) {
    verdict = { valid: false, reason: error instanceof Error ? error.message : String(error) };
  }
  // Units repeat endlessly across resources; the parse is the expensive part.
  if (verdicts.size >= MAX_REMEMBERED_VERDICTS) verdicts.clear();
  verdicts.set(code, verdict);
  return verdict;
}

const commensurability = new Map<string, boolean>();

/**
 * The `canonical =` filter of UCUM value sets (all-time-units: canonical = a, all-distance-units:
 * canonical = m): units that convert to the given unit share its canonical form.
 */
export function ucumFilter(property: string, op: string, value: string): ((code: string) => boolean) | undefined {
  if (property !== 'canonical' || op !== '=') return undefined;
  return (code) => {
    const key = `${code}\u0000${value}`;
    let commensurable = commensurability.get(key);
    if (commensurable === undefined) {
      utils ??= loadUcum();
      try {
        commensurable = checkUcumUnit(code).valid && utils.convertUnitTo(code, 1, value).status === 'succeeded';
      } catch {
        commensurable = false;
      }
      if (commensurability.size >= MAX_REMEMBERED_VERDICTS) commensurability.clear();
      commensurability.set(key, commensurable);
    }
    return commensurable;
  };
}
