/**
 * The HL7 validator's settings through the CLI (in-process, through main()): each setting, by its
 * HL7-named flag, changes the outcome as the HL7 validator's setting does (support/setting-cases.ts);
 * `--harness ... --options <manifest json>` takes the same settings under the HL7 test manifest's keys.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main, parseCliArgs } from '#validation/cli/validate.js';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { describe_ } from './support/helpers.js';
import { hasIssue, SETTING_CASES, SETTINGS_WITHOUT_R4_EFFECT, type SettingCase } from './support/setting-cases.js';

describe('engine: the HL7 validator\'s settings through the CLI', function () {
  this.timeout(120_000);
  let dir: string;
  let n = 0;
  const file = (content: unknown) => {
    const p = path.join(dir, `f${n++}.json`);
    writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
    return p;
  };
  const outcome = async (argv: string[]): Promise<{ outcome: ValidationOutcome; err: string }> => {
    const out: string[] = [];
    const err: string[] = [];
    await main(argv, (s) => out.push(s), (s) => err.push(s));
    return { outcome: JSON.parse(out.join('\n')) as ValidationOutcome, err: err.join('\n') };
  };
  const inputs = (c: SettingCase) => ({ resource: file(c.resource), loads: (c.supporting ?? []).flatMap((r) => ['--load', file(r)]) });

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'engine-cli-settings-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const c of SETTING_CASES) {
    it(`${c.flags.join(' ')}: ${c.behaviour}`, async () => {
      const { resource, loads } = inputs(c);
      const without = (await outcome([...loads, '--no-extension-pack', resource])).outcome;
      const withIt = (await outcome([...loads, '--no-extension-pack', ...c.flags, resource])).outcome;
      const [present, absent] = c.appears === 'with' ? [withIt, without] : [without, withIt];
      expect(hasIssue(present, c), describe_(present)).to.equal(true);
      expect(hasIssue(absent, c), describe_(absent)).to.equal(false);
    });
  }

  for (const c of SETTING_CASES.filter((x) => x.manifest)) {
    it(`--harness --options ${JSON.stringify(c.manifest)}: the HL7 test manifest's key for ${c.setting}`, async () => {
      const { resource } = inputs(c);
      const supporting = (c.supporting ?? []).map((r) => file(r)).join(',');
      const without = (await outcome(['--harness', resource, '', supporting, '--options', '{}'])).outcome;
      const withIt = (await outcome(['--harness', resource, '', supporting, '--options', JSON.stringify(c.manifest)])).outcome;
      const [present, absent] = c.appears === 'with' ? [withIt, without] : [without, withIt];
      expect(hasIssue(present, c), describe_(present)).to.equal(true);
      expect(hasIssue(absent, c), describe_(absent)).to.equal(false);
    });
  }

  it('settings that change nothing on R4 content are accepted and change nothing (as HL7\'s)', async () => {
    const bundle = file({ resourceType: 'Bundle', id: 'b', type: 'collection', entry: [{ fullUrl: 'http://s.test/Patient/p', resource: { resourceType: 'Patient', id: 'p' } }] });
    for (const s of SETTINGS_WITHOUT_R4_EFFECT) {
      expect((await outcome([...s.flags, bundle])).outcome).to.deep.equal((await outcome([bundle])).outcome);
    }
  });

  it('says which manifest keys have no effect and why; refuses a bad value naming the flag or key', async () => {
    const f = file({ resourceType: 'Patient', id: 'p' });
    const { err } = await outcome(['--harness', f, '', '', '--options', '{"certificate":"c.jwk","crumb-trail":true}']);
    expect(err).to.include('option certificate has no effect: digital signatures are not verified');
    expect(err).to.include('option crumb-trail has no effect');
    expect(parseCliArgs(['-best-practice', 'loud', f])).to.equal('-best-practice: one of ignore, hint, warning, error');
    expect(parseCliArgs(['--harness', f, '', '', '--options', '{"validateReference":"MAYBE"}'])).to.match(/^options.validateReference: one of IGNORE, /);
    expect(parseCliArgs(['--harness', f, '', '', '--options', '[1]'])).to.match(/^--options needs a JSON object/);
    // both dashes work, and lists accumulate
    expect(parseCliArgs(['--extension', 'http://a/', '-extension', 'http://b/', f])).to.deep.include({ settings: { displayIssuesAreWarnings: false, extensionDomains: ['http://a/', 'http://b/'] } });
  });
});
