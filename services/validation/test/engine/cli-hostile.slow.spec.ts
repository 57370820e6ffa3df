/**
 * The validate CLI answers hostile resources (catastrophic narratives and patterns) at once: the
 * same files took seconds to forever when the narrative and the data's patterns met backtracking
 * regular expressions. The time limit below is a hang check, not a speed test.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '#validation/cli/validate.js';
import {
  CATASTROPHIC_PATTERN, CATASTROPHIC_VALUE, HOSTILE_PROFILE_URL, hostileProfile, narrativeWithManyAttributes, narrativeWithManyOpenBrackets,
  patientForHostileProfile, questionnaireResponseWithRegex,
} from './support/hostile-resources.js';

describe('engine: validate CLI on hostile resources', function () {
  this.timeout(60_000);
  let dir: string;
  const file = (name: string, content: unknown) => {
    const p = path.join(dir, name);
    writeFileSync(p, JSON.stringify(content));
    return p;
  };
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const code = await main(['--format', 'text', ...argv], (s) => out.push(s), () => undefined);
    return { code, out: out.join('\n') };
  };

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'engine-cli-hostile-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a narrative tag with 60 quoted attributes and no ">", and 200,000 "<": one error and none', async () => {
    const r = await run([file('attrs.json', narrativeWithManyAttributes(60)), file('lt.json', narrativeWithManyOpenBrackets(200_000))]);
    // The default (HAPI) wording of XHTML_INVALID; the HL7 wording says "The XHTML is not well formed: ...".
    expect(r.out).to.include('error Patient.text.div [line 1] Error parsing XHTML: malformed attribute in start tag <p>');
    expect(r.out.match(/Error parsing XHTML/g) ?? []).to.have.length(1);
    expect(r.code).to.equal(1);
  });

  it('a contained Questionnaire with regex (a+)+$ and an answer of 40 a and a "!"', async () => {
    const r = await run([file('qr.json', questionnaireResponseWithRegex())]);
    expect(r.out).to.include(`The answer '${CATASTROPHIC_VALUE}' does not conform to the expected format '' (regex '${CATASTROPHIC_PATTERN}')`);
    expect(r.code).to.equal(1);
  });

  it('a loaded profile whose invariant and regex extension use (a+)+$', async () => {
    const r = await run(['--load', file('sd.json', hostileProfile()), '--profile', HOSTILE_PROFILE_URL, file('p.json', patientForHostileProfile())]);
    expect(r.out).to.include("Rule hostile-1: 'family is all a' Failed");
    expect(r.out).to.include(`Element value '${CATASTROPHIC_VALUE}' does not meet regex '${CATASTROPHIC_PATTERN}'`);
  });
});
