/** The failure vocabulary itself: kinds, field problems, named reasons, what a subclass keeps. */
import { expect } from 'chai';
import {
  ConflictError, DomainError, ForbiddenError, InvalidInputError, NotFoundError, ProblemCollector, UnavailableError, UnprocessableError,
} from '#shared-kernel/domain/errors.js';

describe('shared kernel: the failure vocabulary', () => {
  it('each error says its kind, and is an Error with its own name', () => {
    const errors = [new InvalidInputError('x'), new ForbiddenError('x'), new NotFoundError('x'), new ConflictError('x'), new UnprocessableError('x'), new UnavailableError('x')];
    expect(errors.map((e) => [e.name, e.failure])).to.deep.equal([
      ['InvalidInputError', 'invalid-input'], ['ForbiddenError', 'forbidden'], ['NotFoundError', 'not-found'],
      ['ConflictError', 'conflict'], ['UnprocessableError', 'unprocessable'], ['UnavailableError', 'unavailable'],
    ]);
    for (const error of errors) expect(error).to.be.instanceOf(DomainError).and.to.be.instanceOf(Error);
  });

  it('invalid input names its fields: one (the message is the problem\'s) or several (the message lists them)', () => {
    expect(InvalidInputError.of('timeZone', 'timeZone is not an IANA zone')).to.deep.include({
      message: 'timeZone is not an IANA zone', problems: [{ field: 'timeZone', message: 'timeZone is not an IANA zone' }],
    });
    const problems = new ProblemCollector();
    expect(problems.isEmpty).to.equal(true);
    problems.throwIfAny();
    problems.add('facilityName', 'facilityName is required');
    problems.add('timeZone', 'timeZone is not an IANA zone');
    expect(() => problems.throwIfAny()).to.throw(InvalidInputError, 'facilityName is required; timeZone is not an IANA zone')
      .with.property('problems').that.has.length(2);
  });

  it('keeps what a kind adds: the resource of a not-found, the field of a conflict, when to retry, the cause', () => {
    expect(NotFoundError.named('Facility', 'F1').message).to.equal('Facility "F1" was not found');
    expect(new ConflictError('facilityId: taken', { field: 'facilityId' })).to.include({ field: 'facilityId', failure: 'conflict' });
    const cause = new Error('queue full');
    const busy = new UnavailableError('Every worker is busy', { dependency: 'validation workers', retryAfterSeconds: 5, cause });
    expect(busy).to.include({ dependency: 'validation workers', retryAfterSeconds: 5, cause });
    expect(new NotFoundError('x').cause).to.equal(undefined);
  });
});
