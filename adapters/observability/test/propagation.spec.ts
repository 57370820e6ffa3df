import { expect } from 'chai';
import { contextFromTraceparent, hasTraceparent, outgoingTraceparent, withTraceparent } from '../propagation.js';
import { runWithContext } from '../request-context.js';
import { parseTraceparent } from '../trace-context.js';

const INCOMING = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';

describe('observability: trace propagation for messages', () => {
  it('a handler context continues a valid traceparent (trace id, span, flags) and starts a new trace otherwise', () => {
    expect(contextFromTraceparent(INCOMING)).to.deep.equal({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: '00' });
    const fresh = [contextFromTraceparent(undefined), contextFromTraceparent('00-zz-yy-01')];
    for (const context of fresh) expect(context.traceId).to.match(/^[0-9a-f]{32}$/);
    expect(fresh[0]!.traceId).to.not.equal(fresh[1]!.traceId);
  });

  it('outgoing: a child span of the current context keeps trace id and flags; outside any context a new sampled trace', () => {
    const context = contextFromTraceparent(INCOMING);
    const child = parseTraceparent(runWithContext(context, () => outgoingTraceparent()));
    expect(child).to.include({ traceId: context.traceId, flags: '00' });
    expect(child!.spanId).to.not.equal(context.spanId);
    const fresh = parseTraceparent(outgoingTraceparent());
    expect(fresh!.traceId).to.not.equal(context.traceId);
    expect(fresh!.flags).to.equal('01');
  });

  it('withTraceparent adds one only when the headers have none (names compared case-insensitively) and never changes the input', () => {
    const given = { Traceparent: INCOMING, 'x-other': '1' };
    expect(hasTraceparent(given)).to.equal(true);
    expect(withTraceparent(given)).to.deep.equal(given);
    const input = { 'x-other': '1' };
    const added = runWithContext(contextFromTraceparent(INCOMING), () => withTraceparent(input));
    expect(parseTraceparent(added.traceparent)?.traceId).to.equal('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(added['x-other']).to.equal('1');
    expect(input).to.deep.equal({ 'x-other': '1' });
    expect(parseTraceparent(withTraceparent(undefined).traceparent)).to.not.equal(undefined);
  });
});
