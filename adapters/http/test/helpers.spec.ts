import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { HttpProblem, pagedResult, parsePaging, parseQuery, sendPaged, toOpenApiPath } from '../index.js';

function problemOf(fn: () => unknown): HttpProblem {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(HttpProblem);
    return error as HttpProblem;
  }
  throw new Error('expected an HttpProblem');
}

describe('adapters/http helpers', () => {
  it('computes totalPages as the ceiling, and 0 for no results', () => {
    expect(pagedResult([], 0, 10, 1).metadata.totalPages).to.equal(0);
    expect(pagedResult([1], 1, 10, 1).metadata.totalPages).to.equal(1);
    expect(pagedResult([1], 20, 10, 1).metadata.totalPages).to.equal(2);
    expect(pagedResult([1], 21, 10, 1).metadata.totalPages).to.equal(3);
  });

  it('computes the offset and honours custom limits', () => {
    expect(parsePaging({ pageSize: '20', pageNumber: '3' })).to.deep.equal({ pageSize: 20, pageNumber: 3, offset: 40 });
    expect(parsePaging({}, { defaultPageSize: 5 })).to.deep.equal({ pageSize: 5, pageNumber: 1, offset: 0 });
    expect(problemOf(() => parsePaging({ pageSize: '21' }, { maxPageSize: 20 })).detail)
      .to.equal('Query parameter pageSize must be between 1 and 20; got 21');
  });

  it('applies the one documented rule: default 10, at most 100, page number one-based; out of range is 400, never corrected', () => {
    expect(parsePaging({})).to.deep.equal({ pageSize: 10, pageNumber: 1, offset: 0 });
    expect(parsePaging({ pageSize: '100' }).pageSize).to.equal(100);
    expect(problemOf(() => parsePaging({ pageSize: '101' })).detail).to.equal('Query parameter pageSize must be between 1 and 100; got 101');
    expect(problemOf(() => parsePaging({ pageSize: '100000' })).status).to.equal(400);
    expect(problemOf(() => parsePaging({ pageNumber: '0' })).detail).to.equal('Query parameter pageNumber must be 1 or more; got 0');
    expect(problemOf(() => parsePaging({ pageSize: 'lots' })).status).to.equal(400);
  });

  it('names the allowed range for a page number or size too large to be an exact number', () => {
    const max = Math.floor(Number.MAX_SAFE_INTEGER / 100);
    const huge = problemOf(() => parsePaging({ pageNumber: '99999999999999999999' }));
    expect(huge.detail).to.equal(`Query parameter pageNumber must be between 1 and ${max}; got "99999999999999999999"`);
    expect(huge.errors).to.deep.equal([{ field: 'pageNumber', message: `must be between 1 and ${max}` }]);
    expect(problemOf(() => parsePaging({ pageNumber: String(max + 1) })).detail).to.equal(`Query parameter pageNumber must be between 1 and ${max}; got ${max + 1}`);
    expect(parsePaging({ pageNumber: String(max), pageSize: '100' }).offset).to.equal((max - 1) * 100);
    expect(problemOf(() => parsePaging({ pageSize: '99999999999999999999' })).detail).to.equal('Query parameter pageSize must be between 1 and 100; got "99999999999999999999"');
    expect(problemOf(() => parsePaging({ pageNumber: '1.5' })).detail).to.match(/must be an integer/);
  });

  it('sends the metadata in X-Pagination when asked', async () => {
    const app = express();
    app.get('/x', (_req, res) => sendPaged(res, pagedResult([{ a: 1 }], 1, 10, 1), { paginationHeader: true }));
    const res = await request(app).get('/x').expect(200);
    expect(JSON.parse(res.headers['x-pagination'] as string)).to.deep.equal({ pageSize: 10, pageNumber: 1, totalCount: 1, totalPages: 1 });
  });

  it('validates query objects with field paths', () => {
    const schema = z.object({ month: z.coerce.number().int().min(1).max(12), year: z.coerce.number().int().min(2000).max(2100) });
    expect(parseQuery(schema, { month: '4', year: '2026' })).to.deep.equal({ month: 4, year: 2026 });
    const problem = problemOf(() => parseQuery(schema, { month: '13', year: '1999' }));
    expect(problem.errors?.map((error) => error.field)).to.deep.equal(['month', 'year']);
    expect(problem.detail).to.match(/^Query is invalid: month: .* \(and 1 more\)$/);
  });

  it('converts express paths to OpenAPI templates', () => {
    expect(toOpenApiPath('/facilities/:facilityId/plans/:planId')).to.equal('/facilities/{facilityId}/plans/{planId}');
    expect(toOpenApiPath('/files/*splat')).to.equal('/files/{splat}');
  });
});
