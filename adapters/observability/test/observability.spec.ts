import { expect } from 'chai';
import express from 'express';
import { pino } from 'pino';
import request from 'supertest';
import {
  childTraceContext, createLogger, createMetrics, currentContext, formatTraceparent, generateTraceContext,
  metricsHandler, parseTraceparent, runWithContext, traceContextFromHeader,
} from '../index.js';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('adapters/observability', () => {
  describe('trace context', () => {
    it('parses and formats a valid traceparent unchanged', () => {
      const parsed = parseTraceparent(VALID);
      expect(parsed).to.deep.equal({ version: '00', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', flags: '01' });
      expect(formatTraceparent(parsed!)).to.equal(VALID);
    });

    const invalid = {
      'upper-case hex': VALID.toUpperCase(),
      'short trace id': '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
      'all-zero trace id': `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
      'all-zero span id': `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`,
      'version ff': VALID.replace(/^00/, 'ff'),
      'extra field on version 00': `${VALID}-xx`,
      'bad flags': VALID.replace(/01$/, 'zz'),
      'garbage': 'hello',
      'empty': '',
    };
    for (const [label, header] of Object.entries(invalid)) {
      it(`refuses ${label} and generates a new context instead`, () => {
        expect(parseTraceparent(header)).to.equal(undefined);
        const generated = traceContextFromHeader(header);
        expect(formatTraceparent(generated)).to.match(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      });
    }

    it('accepts a future version and keeps only the known fields', () => {
      expect(parseTraceparent(`01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-future`)?.traceId)
        .to.equal('4bf92f3577b34da6a3ce929d0e0e4736');
    });

    it('makes child spans in the same trace and fresh ids for new traces', () => {
      const parent = parseTraceparent(VALID)!;
      const child = childTraceContext(parent);
      expect(child.traceId).to.equal(parent.traceId);
      expect(child.spanId).to.match(/^[0-9a-f]{16}$/).and.not.equal(parent.spanId);
      expect(generateTraceContext().traceId).not.to.equal(generateTraceContext().traceId);
    });
  });

  describe('request context', () => {
    it('follows awaits and timers inside runWithContext and is absent outside', async () => {
      expect(currentContext()).to.equal(undefined);
      const seen = await runWithContext({ traceId: 'abc', authorization: 'Bearer t' }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return currentContext();
      });
      expect(seen).to.deep.equal({ traceId: 'abc', authorization: 'Bearer t' });
      expect(currentContext()).to.equal(undefined);
    });

    it('adds the trace id to log lines written inside a request', () => {
      const lines: string[] = [];
      const logger = createLogger('test', 'info');
      (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = { write: (line: string) => lines.push(line) };
      runWithContext({ traceId: 'trace-1' }, () => logger.info('inside'));
      logger.info('outside');
      expect(JSON.parse(lines[0]!)).to.include({ traceId: 'trace-1', msg: 'inside' });
      expect(JSON.parse(lines[1]!)).not.to.have.property('traceId');
    });
  });

  describe('metrics', () => {
    it('exposes default and custom metrics with the service label on GET /metrics', async () => {
      const metrics = createMetrics('unit-svc');
      const counter = metrics.counter({ name: 'widgets_total', help: 'widgets', labelNames: ['kind'] });
      counter.inc({ kind: 'blue' }, 2);
      expect(metrics.counter({ name: 'widgets_total', help: 'widgets', labelNames: ['kind'] })).to.equal(counter);
      metrics.histogram({ name: 'work_seconds', help: 'work', buckets: [0.1, 1] }).observe(0.5);
      const app = express();
      app.get('/metrics', metricsHandler(metrics.registry));
      const res = await request(app).get('/metrics').expect(200);
      expect(res.headers['content-type']).to.contain('text/plain');
      expect(res.text).to.contain('widgets_total{kind="blue",service="unit-svc"} 2');
      expect(res.text).to.contain('work_seconds_bucket{le="1",service="unit-svc"} 1');
      expect(res.text).to.contain('process_cpu_user_seconds_total{service="unit-svc"}');
    });
  });
});
