/**
 * The shared failure vocabulary (services/shared-kernel) answered as Problem Details by the app's
 * error handler, the one mapping every service uses: each kind's status, type, title and detail;
 * field problems as `errors`; a named reason as type and title; facts as extension members;
 * Retry-After for an unavailable dependency that says when.
 */
import { expect } from 'chai';
import { Router } from 'express';
import request from 'supertest';
import {
  ConflictError, DomainError, ForbiddenError, InvalidInputError, NotFoundError, UnavailableError, UnprocessableError,
} from '#shared-kernel/domain/errors.js';
import { silentLogger } from '../../observability/logger.js';
import { createHttpApp } from '../index.js';

const TYPE = 'https://nhsn-link.example/problems/';

describe('adapters/http: the failure vocabulary as Problem Details', () => {
  const thrown = new Map<string, () => Error>([
    ['invalid', () => new InvalidInputError('facilityName is required; timeZone is not an IANA zone', [
      { field: 'facilityName', message: 'is required' }, { field: 'timeZone', message: 'is not an IANA zone' }])],
    ['invalid-plain', () => new InvalidInputError('The body must be a FHIR resource')],
    ['forbidden', () => new ForbiddenError('Not yours')],
    ['not-found', () => NotFoundError.named('Facility', 'F1')],
    ['conflict', () => new ConflictError('facilityId: a facility with facilityId "F1" already exists', { field: 'facilityId' })],
    ['unprocessable', () => new UnprocessableError('Validation did not finish within 20 ms', { reason: { code: 'validation-timeout', title: 'Validation did not finish' } })],
    ['unavailable', () => new UnavailableError('Every worker is busy; try again later', { retryAfterSeconds: 5, cause: new Error('internal queue text') })],
    ['facts', () => new DomainError('conflict', 'Key k1 is in use', { reason: { code: 'signing-key-in-use', title: 'Signing key in use' }, facts: { facilities: ['F1', 'F2'], status: 200 } })],
  ]);
  const http = createHttpApp({ serviceName: 'vocabulary-test', logger: silentLogger(), docs: false });
  const router = Router();
  router.get('/api/fail/:kind', (req) => { throw thrown.get(String(req.params.kind))!(); });
  http.app.use(router);
  const app = http.finish();
  const fail = (kind: string) => request(app).get(`/api/fail/${kind}`);

  it('invalid input: 400 validation-failed with one error per field, or bad-request without field problems', async () => {
    const res = await fail('invalid').expect(400).expect('content-type', /^application\/problem\+json/);
    expect(res.body).to.deep.include({
      type: `${TYPE}validation-failed`, title: 'Validation failed', status: 400, detail: 'facilityName is required; timeZone is not an IANA zone',
      instance: '/api/fail/invalid',
      errors: [{ field: 'facilityName', message: 'is required' }, { field: 'timeZone', message: 'is not an IANA zone' }],
    });
    const plain = await fail('invalid-plain').expect(400);
    expect(plain.body).to.deep.include({ type: `${TYPE}bad-request`, title: 'Bad request', detail: 'The body must be a FHIR resource' });
    expect(plain.body).not.to.have.property('errors');
  });

  it('forbidden 403, not found 404, conflict 409: the kind\'s type and title, the message as detail', async () => {
    expect((await fail('forbidden').expect(403)).body).to.deep.include({ type: `${TYPE}forbidden`, title: 'Forbidden', detail: 'Not yours' });
    expect((await fail('not-found').expect(404)).body).to.deep.include({ type: `${TYPE}not-found`, title: 'Not found', detail: 'Facility "F1" was not found' });
    const conflict = await fail('conflict').expect(409);
    expect(conflict.body).to.deep.include({ type: `${TYPE}conflict`, title: 'Conflict', detail: 'facilityId: a facility with facilityId "F1" already exists' });
    expect(conflict.body).not.to.have.property('errors');
  });

  it('unprocessable 422 under the reason it names', async () => {
    expect((await fail('unprocessable').expect(422)).body).to.deep.include({
      type: `${TYPE}validation-timeout`, title: 'Validation did not finish', status: 422, detail: 'Validation did not finish within 20 ms',
    });
  });

  it('unavailable 503 with Retry-After; the cause stays out of the answer', async () => {
    const res = await fail('unavailable').expect(503).expect('retry-after', '5');
    expect(res.body).to.deep.include({ type: `${TYPE}service-unavailable`, title: 'Service unavailable', detail: 'Every worker is busy; try again later' });
    expect(JSON.stringify(res.body)).not.to.contain('internal queue text');
  });

  it('facts become extension members, next to the standard ones they cannot replace', async () => {
    const res = await fail('facts').expect(409);
    expect(res.body).to.deep.include({ type: `${TYPE}signing-key-in-use`, title: 'Signing key in use', status: 409, facilities: ['F1', 'F2'] });
  });
});
