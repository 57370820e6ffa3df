/** The worker pool validates in worker threads and gives the same outcome as in-process. */
import { expect } from 'chai';
import { ValidationPool } from '#validation/adapters/worker-pool/validation-pool.js';

describe('engine: validation worker pool', function () {
  this.timeout(60_000);
  let pool: ValidationPool;
  before(() => {
    pool = ValidationPool.create({ threads: 2 });
  });
  after(async () => {
    await pool.close();
  });

  it('validates batches in workers, in parallel', async () => {
    const bad = { resourceType: 'Patient', birthDate: 'not a date' };
    const good = { resourceType: 'Patient', text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' } };
    const [a, b] = await Promise.all([pool.validate({ resources: [bad, good] }), pool.validate({ resources: ['{"resourceType":"Observation"}'] })]);
    expect(a[0]?.issue.map((i) => i.details.text)).to.include('Not a valid date (not a date)');
    expect(a[1]?.issue.filter((i) => i.severity === 'error')).to.deep.equal([]);
    expect(b[0]?.issue.map((i) => i.details.text)).to.include('Observation.status: minimum required = 1, but only found 0 (from http://hl7.org/fhir/StructureDefinition/Observation|4.0.1)');
    expect(pool.threads).to.equal(2);
  });
});
