import { expect } from 'chai';
import request from 'supertest';
import { buildTestApp, capturingLogger } from './support.js';

const ID = '3f2c4a9e-8d6b-4c1a-9e5f-2b7d8c9a0e1f';
const PROBLEM = /^application\/problem\+json/;

describe('adapters/http app', () => {
  const { app } = buildTestApp();

  describe('Problem Details', () => {
    it('answers malformed JSON with 400 naming the parse problem and its position', async () => {
      const res = await request(app).post('/api/facilities').set('Content-Type', 'application/json').send('{"id": "x",}').expect(400);
      expect(res.headers['content-type']).to.match(PROBLEM);
      expect(res.body).to.include({ type: 'https://nhsn-link.example/problems/malformed-json', status: 400, title: 'Malformed JSON', instance: '/api/facilities' });
      expect(res.body.detail).to.match(/^Request body is not valid JSON: .*position 11/);
      expect(res.body.traceId).to.equal(res.headers['x-trace-id']);
    });

    it('answers a JSON body escaping NUL or an unpaired surrogate (in a value or a member name) with 400 before parsing it, not a 500 from the store', async () => {
      const cases = [
        ['{"facilityName":"a\\u0000b"}', 'the NUL character (\\u0000)'], ['{"facilityName":"\\uD800"}', 'an unpaired surrogate (\\uD800)'],
        ['{"x":["\\udc00z"]}', 'an unpaired surrogate (\\udc00)'], ['{"\\u0000":1}', 'the NUL character (\\u0000)'],
        ['{"x":"\\ud83d\\u0041"}', 'an unpaired surrogate (\\ud83d)'], ['{"x":"\\\\\\u0000"}', 'the NUL character (\\u0000)'],
      ] as const;
      for (const [body, escape] of cases) {
        const res = await request(app).post('/api/facilities').set('Content-Type', 'application/json').send(body).expect(400);
        expect(res.headers['content-type']).to.match(PROBLEM);
        expect(res.body).to.include({ type: 'https://nhsn-link.example/problems/bad-request', status: 400 });
        expect(res.body.detail, body).to.equal(`The request body escapes ${escape}: neither is text that can be stored`);
      }
      // an escaped backslash before u0000 is text, not an escape
      const text = await request(app).post('/api/facilities').set('Content-Type', 'application/json').send(`{"id":"${ID}","facilityName":"a\\\\u0000","timeZone":"UTC"}`);
      expect(text.status, text.text).to.equal(201);
      expect(text.body.facilityName).to.equal('a\\u0000');
      // a surrogate pair is a character like any other
      const paired = await request(app).post('/api/facilities').set('Content-Type', 'application/json').send(`{"id":"${ID}","facilityName":"\\ud83d\\ude00","timeZone":"UTC"}`);
      expect(paired.status, paired.text).to.equal(201);
      expect(paired.body.facilityName).to.equal('😀');
    });

    it('answers a body over the JSON limit with 413', async () => {
      const res = await request(app).post('/api/facilities').send({ facilityName: 'x'.repeat(2000) }).expect(413);
      expect(res.headers['content-type']).to.match(PROBLEM);
      expect(res.body).to.include({ status: 413, type: 'https://nhsn-link.example/problems/payload-too-large' });
      expect(res.body.detail).to.contain('1024 bytes');
    });

    it('answers a path parameter that is no percent-encoded UTF-8 with 400, not 500', async () => {
      for (const id of ['%', '%zz', '%C3%28', '%ED%A0%80']) {
        const res = await request(app).get(`/api/facilities/${id}`).expect(400);
        expect(res.headers['content-type']).to.match(PROBLEM);
        expect(res.body).to.include({ status: 400, type: 'https://nhsn-link.example/problems/bad-request', detail: 'A path segment is not valid percent-encoded UTF-8' });
      }
    });

    it('answers a path or query holding the NUL character with 400 (PostgreSQL text cannot hold it)', async () => {
      for (const url of ['/api/facilities/a%00b', '/api/facilities?facilityName=%00', '/api/nothing%00']) {
        const res = await request(app).get(url).expect(400);
        expect(res.headers['content-type']).to.match(PROBLEM);
        expect(res.body).to.include({ status: 400, detail: 'The path and query must not contain the NUL character (%00)' });
      }
      await request(app).get('/api/facilities?facilityName=%2500').expect(200);
    });

    it('answers an unknown route with 404', async () => {
      const res = await request(app).get('/api/nothing-here').expect(404);
      expect(res.headers['content-type']).to.match(PROBLEM);
      expect(res.body).to.include({ status: 404, detail: 'No resource at GET /api/nothing-here', instance: '/api/nothing-here' });
    });

    it('answers a known path with the wrong method with 405 and Allow, also under a router prefix', async () => {
      const res = await request(app).patch(`/api/facilities/${ID}`).send({}).expect(405);
      expect(res.headers.allow).to.equal('DELETE, GET, HEAD, PUT');
      expect(res.body).to.include({ status: 405, type: 'https://nhsn-link.example/problems/method-not-allowed' });
      const collection = await request(app).delete('/api/facilities').expect(405);
      expect(collection.headers.allow).to.equal('GET, HEAD, POST');
      const health = await request(app).post('/health').expect(405);
      expect(health.headers.allow).to.equal('GET, HEAD');
    });

    it('answers a thrown HttpProblem with its status and detail', async () => {
      const res = await request(app).get(`/api/facilities/${ID}`).expect(404);
      expect(res.body).to.deep.include({ type: 'https://nhsn-link.example/problems/not-found', title: 'Not found', detail: `Facility ${ID} not found` });
    });

    it('answers an unexpected error with a generic 500, logs it with the trace id and leaks nothing', async () => {
      const capture = capturingLogger();
      const { app: logged } = buildTestApp({ logger: capture.logger });
      const res = await request(logged).get('/api/boom').expect(500);
      expect(res.headers['content-type']).to.match(PROBLEM);
      expect(res.body).to.have.all.keys('type', 'title', 'status', 'detail', 'traceId', 'instance');
      expect(res.text).not.to.contain('hunter2');
      expect(res.text).not.to.match(/at .*\.ts:\d+/);
      expect(res.body.traceId).to.match(/^[0-9a-f]{32}$/).and.equal(res.headers['x-trace-id']);
      const errorLine = capture.lines.find((line) => line.level === 50);
      expect(errorLine).to.deep.include({ traceId: res.body.traceId, msg: 'unhandled error' });
      expect(errorLine?.err?.message).to.contain('hunter2');
      const requestLine = capture.lines.find((line) => line.msg === 'request');
      expect(requestLine).to.include({ method: 'GET', path: '/api/boom', status: 500 });
      expect(requestLine).to.have.property('durationMs');
    });

    it('maps an UpstreamError to 502', async () => {
      const res = await request(app).get('/api/upstream').expect(502);
      expect(res.body).to.include({ type: 'https://nhsn-link.example/problems/bad-gateway', status: 502 });
      expect(res.text).not.to.contain('http://report');
    });

    it('refuses a body of the wrong media type with 415 where the route requires one', async () => {
      const res = await request(app).post('/api/packages').set('Content-Type', 'application/json').send('{}').expect(415);
      expect(res.body.detail).to.equal('Content-Type must be one of application/gzip, application/x-tar; got application/json');
    });

    it('refuses a FHIR XML body with 415 telling the client to send application/fhir+json', async () => {
      const res = await request(app).post('/api/fhir').set('Content-Type', 'application/fhir+xml')
        .send('<Patient xmlns="http://hl7.org/fhir"/>').expect(415);
      expect(res.headers['content-type']).to.contain('application/problem+json');
      expect(res.body).to.include({ status: 415, type: 'https://nhsn-link.example/problems/unsupported-media-type' });
      expect(res.body.detail).to.contain('send application/fhir+json');
      for (const xml of ['application/xml', 'text/xml; charset=utf-8']) {
        const other = await request(app).post('/api/fhir').set('Content-Type', xml).send('<x/>').expect(415);
        expect(other.body.detail, xml).to.contain('send application/fhir+json');
      }
    });

    it('refuses any other unread body type with 415 (text, form), but not a request without a body', async () => {
      const text = await request(app).post('/api/fhir').set('Content-Type', 'text/plain').send('{"resourceType":"Patient"}').expect(415);
      expect(text.body.detail).to.equal('Content-Type text/plain is not supported: send application/json (application/fhir+json for FHIR resources)');
      await request(app).post('/api/facilities').type('form').send('id=1').expect(415);
      await request(app).delete(`/api/facilities/${ID}`).expect(204);
    });

    it('lets a route that reads any media type itself have its body', async () => {
      const res = await request(app).put('/api/blobs/pkg').set('Content-Type', 'application/x-www-form-urlencoded').send('bytes of a package').expect(200);
      expect(res.body).to.deep.equal({ bytes: 18 });
    });

    it('lists every invalid field of a body', async () => {
      const res = await request(app).post('/api/facilities').send({ id: 'nope', facilityName: '', tags: ['ok', ''] }).expect(400);
      expect(res.body.type).to.equal('https://nhsn-link.example/problems/validation-failed');
      const fields = (res.body.errors as Array<{ field: string }>).map((error) => error.field).sort();
      expect(fields).to.deep.equal(['facilityName', 'id', 'tags[1]', 'timeZone']);
      expect(res.body.detail).to.match(/^Request body is invalid: .* \(and 3 more\)$/);
    });
  });

  describe('trace context', () => {
    it('keeps the trace id of an incoming traceparent and exposes it with the Authorization header to handlers', async () => {
      const res = await request(app).get('/api/context')
        .set('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')
        .set('Authorization', 'Bearer abc')
        .expect(200);
      expect(res.headers['x-trace-id']).to.equal('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(res.body).to.include({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', authorization: 'Bearer abc' });
    });

    it('generates a trace id for an invalid traceparent', async () => {
      const res = await request(app).get('/api/context').set('traceparent', 'garbage').expect(200);
      expect(res.headers['x-trace-id']).to.match(/^[0-9a-f]{32}$/);
      expect(res.body.traceId).to.equal(res.headers['x-trace-id']);
    });

    it('keeps the request context after a JSON body was parsed, for application/fhir+json too', async () => {
      const res = await request(app).post('/api/fhir').set('Content-Type', 'application/fhir+json').set('Authorization', 'Bearer t')
        .send(JSON.stringify({ resourceType: 'Patient' })).expect(200);
      expect(res.body.resourceType).to.equal('Patient');
      expect(res.body.context).to.include({ traceId: res.headers['x-trace-id'], authorization: 'Bearer t' });
    });
  });

  describe('uploads', () => {
    it('accepts a 50 MB gzip package as a Buffer', async () => {
      const { app: big } = buildTestApp({ rawLimit: '50mb' });
      const payload = Buffer.alloc(50 * 1024 * 1024 - 1024, 7);
      payload[0] = 0x1f;
      const res = await request(big).post('/api/packages').set('Content-Type', 'application/gzip').send(payload).expect(200);
      expect(res.body).to.deep.equal({ bytes: payload.length, firstByte: 0x1f });
    });

    it('refuses an upload over the raw limit with 413', async () => {
      const { app: small } = buildTestApp({ rawLimit: '10kb' });
      const res = await request(small).post('/api/packages').set('Content-Type', 'application/x-tar').send(Buffer.alloc(20 * 1024)).expect(413);
      expect(res.body.detail).to.equal('Request body exceeds the limit of 10240 bytes');
    });
  });

  describe('paging and sorting', () => {
    it('returns the paged model with totalPages rounded up', async () => {
      const res = await request(app).get('/api/facilities?pageSize=10&pageNumber=3').expect(200);
      expect(res.body.metadata).to.deep.equal({ pageSize: 10, pageNumber: 3, totalCount: 23, totalPages: 3 });
      expect(res.body.records).to.have.length(3);
    });

    it('uses defaults 10 / 1', async () => {
      const res = await request(app).get('/api/facilities').expect(200);
      expect(res.body.metadata).to.include({ pageSize: 10, pageNumber: 1 });
      expect(res.headers['x-sort']).to.equal('Id desc');
    });

    it('answers 204 without a body when there are no results', async () => {
      const res = await request(app).get('/api/facilities?empty=true').expect(204);
      expect(res.text).to.equal('');
    });

    for (const [query, parameter] of [['pageSize=0', 'pageSize'], ['pageSize=101', 'pageSize'], ['pageSize=ten', 'pageSize'],
      ['pageNumber=0', 'pageNumber'], ['pageSize=5&pageSize=6', 'pageSize']] as const) {
      it(`refuses ${query} with 400 naming ${parameter}`, async () => {
        const res = await request(app).get(`/api/facilities?${query}`).expect(400);
        expect(res.body.detail).to.contain(`Query parameter ${parameter}`);
        expect(res.body.errors[0].field).to.equal(parameter);
      });
    }

    it('matches sort fields case-insensitively and returns the canonical name', async () => {
      const res = await request(app).get('/api/facilities?sortBy=facilityname&sortOrder=Ascending').expect(200);
      expect(res.headers['x-sort']).to.equal('FacilityName asc');
    });

    it('refuses a sort field outside the whitelist with 400', async () => {
      const res = await request(app).get(`/api/facilities?sortBy=${encodeURIComponent('name; drop table x')}`).expect(400);
      expect(res.body.detail).to.equal('Query parameter sortBy must be one of Id, FacilityName, CreateDate');
      await request(app).get('/api/facilities?sortOrder=sideways').expect(400);
    });
  });

  describe('PUT and POST rules', () => {
    const facility = { id: ID, facilityName: 'General', timeZone: 'America/Chicago' };

    it('refuses a body without id', async () => {
      const { id: _id, ...withoutId } = facility;
      const res = await request(app).put(`/api/facilities/${ID}`).send(withoutId).expect(400);
      expect(res.body.detail).to.equal('Body id must equal the id in the URL');
    });

    it('refuses a body with a different id', async () => {
      const res = await request(app).put(`/api/facilities/${ID}`).send({ ...facility, id: '11111111-2222-4333-8444-555555555555' }).expect(400);
      expect(res.body.detail).to.equal('Body id must equal the id in the URL');
    });

    it('refuses a non-UUID id with "Invalid Id format"', async () => {
      const res = await request(app).put('/api/facilities/42').send({ ...facility, id: '42' }).expect(400);
      expect(res.body.detail).to.equal('Invalid Id format');
    });

    it('refuses a non-UUID id on GET and DELETE too, where the resource has UUID ids', async () => {
      for (const method of ['get', 'delete'] as const) {
        const res = await request(app)[method]('/api/plans/42').expect(400);
        expect(res.body.detail, method).to.equal('Invalid Id format');
      }
      await request(app).get(`/api/plans/${ID}`).expect(200);
      await request(app).delete(`/api/plans/${ID}`).expect(204);
    });

    it('answers a valid PUT with 202 and the representation', async () => {
      const res = await request(app).put(`/api/facilities/${ID}`).send(facility).expect(202);
      expect(res.body).to.deep.equal(facility);
    });

    it('answers a create with 201 and Location', async () => {
      const res = await request(app).post('/api/facilities').send(facility).expect(201);
      expect(res.headers.location).to.equal(`/api/facilities/${ID}`);
      expect(res.body).to.deep.equal(facility);
    });
  });

  describe('documentation', () => {
    it('serves an OpenAPI 3.1 document with the registered path and the Problem Details schema', async () => {
      const res = await request(app).get('/api-docs').expect(200);
      expect(res.body.openapi).to.equal('3.1.0');
      expect(res.body.info).to.include({ title: 'Test API', version: '1.2.3' });
      const put = res.body.paths['/configs/facilities/{facilityId}'].put;
      expect(put.responses['400'].content['application/problem+json'].schema.$ref).to.equal('#/components/schemas/ProblemDetails');
      expect(res.body.components.schemas.ProblemDetails.required).to.include.members(['type', 'title', 'status', 'detail', 'traceId']);
      expect(res.body.components.schemas).to.have.property('Facility');
    });

    it('serves Swagger UI pointing at /api-docs', async () => {
      await request(app).get('/swagger').expect(301).expect('Location', '/swagger/');
      const page = await request(app).get('/swagger/').expect(200);
      expect(page.headers['content-type']).to.contain('text/html');
      expect(page.text).to.contain('swagger-ui');
      const init = await request(app).get('/swagger/swagger-ui-init.js').expect(200);
      expect(init.text).to.contain('"swaggerUrl": "../api-docs"');
      expect(init.text).to.contain('"persistAuthorization": true');
    });

    it('sends a visitor of the bare address to the Swagger UI instead of a 404', async () => {
      await request(app).get('/').expect(302).expect('Location', '/swagger');
    });

    it('declares the bearer scheme, so Swagger UI shows its Authorize button', async () => {
      const res = await request(app).get('/api-docs').expect(200);
      expect(res.body.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
      expect(res.body.security).to.deep.equal([{ bearerAuth: [] }]);
    });
  });

  describe('health and metrics', () => {
    it('answers liveness with UP', async () => {
      const res = await request(app).get('/health').expect(200);
      expect(res.body).to.deep.equal({ status: 'UP' });
    });

    it('answers readiness with 200 when every check passes', async () => {
      const { app: ready } = buildTestApp({ readiness: [{ name: 'database', check: async () => 'ok' }] });
      const res = await request(ready).get('/health/ready').expect(200);
      expect(res.body.status).to.equal('UP');
      expect(res.body.checks.database.status).to.equal('UP');
    });

    it('answers readiness with 503 naming the failing and the timed-out check, their reasons only in the log', async () => {
      const { logger, lines } = capturingLogger();
      const { app: notReady } = buildTestApp({
        logger,
        readiness: [
          { name: 'database', check: async () => 'ok' },
          { name: 'nats', check: async () => { throw new Error('connection refused by nats://10.1.2.3:4222 (user validation)'); } },
          { name: 'cache', check: () => new Promise(() => undefined), timeoutMs: 20 },
        ],
      });
      const res = await request(notReady).get('/health/ready').expect(503);
      expect(res.body.status).to.equal('DOWN');
      expect(res.body.checks.database.status).to.equal('UP');
      expect(res.body.checks.nats.status).to.equal('DOWN');
      expect(res.body.checks.cache.status).to.equal('DOWN');
      expect(Object.keys(res.body.checks.nats).sort()).to.deep.equal(['durationMs', 'status']);
      expect(res.text).not.to.contain('10.1.2.3').and.not.to.contain('refused').and.not.to.contain('timed out');
      const logged = lines.filter((line) => line.msg?.startsWith('readiness check'));
      expect(logged.map((line) => [line.check, line.error])).to.have.deep.members([
        ['nats', 'connection refused by nats://10.1.2.3:4222 (user validation)'], ['cache', 'timed out after 20 ms'],
      ]);
    });

    it('exposes the request duration histogram by route template on /metrics', async () => {
      await request(app).get(`/api/facilities/${ID}`).expect(404);
      await request(app).get('/api/no-such-route/42').expect(404);
      const res = await request(app).get('/metrics').expect(200);
      expect(res.text).to.match(/http_request_duration_seconds_count\{service="http-test",method="GET",route="\/api\/facilities\/:facilityId",status_code="404"\} [1-9]/);
      expect(res.text).to.match(/http_request_duration_seconds_count\{service="http-test",method="GET",route="unmatched",status_code="404"\} [1-9]/);
    });
  });
});
