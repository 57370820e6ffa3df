import { expect } from 'chai';
import { headers } from '@nats-io/transport-node';
import { DEAD_LETTER_HEADERS, DeadLetterQueue } from '../dead-letter.js';
import { runDeadLetterCommand } from '../dead-letter-cli.js';
import { testBroker, type TestBroker } from './support.js';

describe('messaging: dead-letter queue and its CLI', () => {
  let broker: TestBroker;
  let dlq: DeadLetterQueue;
  before(async () => {
    broker = await testBroker();
    dlq = new DeadLetterQueue(broker.js, broker.jsm, broker.catalog);
  });
  after(async () => { await broker.cleanup(); });

  const failed = (subject: string, seq: number) => {
    const h = headers();
    h.set('Nats-Msg-Id', `orig-${seq}`);
    h.set('traceparent', 'tp');
    return { subject, data: new TextEncoder().encode(`not json ${seq}`), headers: h, stream: 'S', streamSequence: seq, deliveryCount: 2, consumer: 'c' };
  };

  it('stores a failed delivery once even if dead-lettered twice (same stream, sequence and consumer)', async () => {
    const subject = broker.catalog.byName('ReportScheduled').subject;
    const first = await dlq.deadLetter(failed(subject, 7), 'reason one\nsecond line');
    const again = await dlq.deadLetter(failed(subject, 7), 'reason one');
    expect(first.duplicate).to.equal(false);
    expect(again.duplicate).to.equal(true);
    const dl = await dlq.read(first.seq);
    expect(dl!.reason).to.equal('reason one second line'); // headers are single lines
    expect(dl!.headers[DEAD_LETTER_HEADERS.originalMsgId]).to.equal('orig-7');
    expect(dl!.headers['Nats-Msg-Id']).to.equal('S:7:c');
    expect(dl!.text).to.equal('not json 7');
  });

  it('lists with a subject filter and a limit; reads a missing sequence as undefined', async () => {
    const a = broker.catalog.byName('ValidationComplete').subject;
    const b = broker.catalog.byName('ReadyForValidation').subject;
    await dlq.deadLetter(failed(a, 1), 'a1');
    await dlq.deadLetter(failed(b, 2), 'b2');
    await dlq.deadLetter(failed(a, 3), 'a3');
    expect((await dlq.list({ originalSubject: a })).map((d) => d.reason)).to.deep.equal(['a1', 'a3']);
    expect(await dlq.list({ originalSubject: a, limit: 1 })).to.have.length(1);
    expect(await dlq.read(10_000)).to.equal(undefined);
  });

  it('the CLI lists, shows, replays and removes', async () => {
    const subject = broker.catalog.byName('GenerateReportRequested').subject;
    const { seq } = await dlq.deadLetter(failed(subject, 11), 'cli test');
    const out: string[] = [];
    const write = (l: string) => out.push(l);

    expect(await runDeadLetterCommand(['list', '--subject', subject], dlq, write)).to.equal(0);
    expect(out[0]).to.match(new RegExp(`^${seq}\\t.+\\t${subject.replace(/\./g, '\\.')}\\tdeliveries=2\\tconsumer=c\\tcli test$`));
    expect(out[1]).to.equal('1 dead letter(s)');

    out.length = 0;
    expect(await runDeadLetterCommand(['show', String(seq)], dlq, write)).to.equal(0);
    expect(out).to.include(`${DEAD_LETTER_HEADERS.reason}: cli test`);
    expect(out.at(-1)).to.equal('not json 11');

    out.length = 0;
    expect(await runDeadLetterCommand(['replay', String(seq), '--remove'], dlq, write)).to.equal(0);
    expect(out[0]).to.match(new RegExp(`^replayed to ${subject.replace(/\./g, '\\.')} as ${broker.catalog.byName('GenerateReportRequested').stream}#\\d+$`));
    expect(await dlq.read(seq)).to.equal(undefined);

    out.length = 0;
    expect(await runDeadLetterCommand(['remove', String(seq)], dlq, write)).to.equal(1);
    expect(await runDeadLetterCommand(['show', 'abc'], dlq, write)).to.equal(1);
    expect(out.at(-1)).to.equal('error: Expected a dead-letter sequence number, got "abc"');
    expect(await runDeadLetterCommand(['frobnicate'], dlq, write)).to.equal(2);
  });
});
