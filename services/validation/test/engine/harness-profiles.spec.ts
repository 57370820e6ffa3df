/**
 * The conformance harness's profiles as the HL7 test runner applies them: a profile URL naming a
 * resource contained in a loaded StructureDefinition stands for that StructureDefinition.
 */
import { expect } from 'chai';
import { harnessProfiles } from '#validation/cli/harness-profiles.js';

describe('CLI --harness: profiles as the HL7 test runner takes them from their source file', () => {
  const sd = (url: string, containedUrls: string[] = []) => ({ resourceType: 'StructureDefinition', url, contained: containedUrls.map((u, i) => ({ resourceType: 'ValueSet', id: `v${i}`, url: u })) });

  it('a StructureDefinition\'s own URL, or one nothing loaded contains, is kept', () => {
    const loaded = [sd('http://x.test/sd/a', ['http://x.test/vs/a'])];
    expect(harnessProfiles(['http://x.test/sd/a', 'http://x.test/nowhere'], loaded)).to.deep.equal(['http://x.test/sd/a', 'http://x.test/nowhere']);
  });

  it('the URL of a resource contained in one loaded StructureDefinition stands for that StructureDefinition', () => {
    expect(harnessProfiles(['http://x.test/vs/a'], [sd('http://x.test/sd/a', ['http://x.test/vs/a']), { resourceType: 'ValueSet', url: 'http://x.test/vs/b' }])).to.deep.equal(['http://x.test/sd/a']);
    // contained in two: ambiguous, kept as given
    expect(harnessProfiles(['http://x.test/vs/a'], [sd('http://x.test/sd/a', ['http://x.test/vs/a']), sd('http://x.test/sd/b', ['http://x.test/vs/a'])])).to.deep.equal(['http://x.test/vs/a']);
  });
});
