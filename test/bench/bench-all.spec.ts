import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { BENCHES, compare, readRecorded, writeRecorded, type RecordedRatio } from '#scripts/bench/bench-all.js';
import { parseRatioLines, ratioLine } from '#scripts/bench/ratio-line.js';

const DOC = `# Figures
text before
<!-- bench:all ratios: written by \`npm run bench:all -- --record\` -->
| ratio | recorded | date | machine | load (1 min) |
|---|---|---|---|---|
| \`tenant.get.service/bare\` | 0.60 | 2026-11-28 | 2 cores | 1.0 |
| \`engine.all-cores/one-worker\` | 1.80 | 2026-11-27 | 2 cores | 0.5 |
<!-- /bench:all ratios -->
text after
`;

const record = (name: string, value: number): RecordedRatio => ({ name, value, date: '2026-11-28', machine: 'm', load: '1' });

describe('bench:all', () => {
  it('reads the ratio lines a benchmark prints, and nothing else', () => {
    const output = [
      'paged search: service 700 req/s', ratioLine('tenant.search.service/bare', 0.6049), 'ratio end-to-end / engine-only throughput: 0.73 (median)',
      ratioLine('tenant.get.service/bare', 0.5), 'some ratio tenant.x: 9', ratioLine('tenant.get.service/bare', 0.55),
    ].join('\n');
    expect([...parseRatioLines(output)]).to.deep.equal([['tenant.search.service/bare', 0.6], ['tenant.get.service/bare', 0.55]]);
  });

  it('reads the recorded table and writes it back with new rows, keeping the text around it', () => {
    const recorded = readRecorded(DOC);
    expect(recorded.get('tenant.get.service/bare')).to.deep.equal({ name: 'tenant.get.service/bare', value: 0.6, date: '2026-11-28', machine: '2 cores', load: '1.0' });
    expect(recorded.get('engine.all-cores/one-worker')?.value).to.equal(1.8);
    const updated = new Map(recorded).set('tenant.search.service/bare', record('tenant.search.service/bare', 0.612));
    const written = writeRecorded(DOC, updated);
    expect(written.startsWith('# Figures\ntext before\n')).to.equal(true);
    expect(written.endsWith('<!-- /bench:all ratios -->\ntext after\n')).to.equal(true);
    expect([...readRecorded(written).keys()]).to.deep.equal(['engine.all-cores/one-worker', 'tenant.get.service/bare', 'tenant.search.service/bare']);
    expect(readRecorded(written).get('tenant.search.service/bare')?.value).to.equal(0.61);
  });

  it('warns on a drop of more than 15 % only, and names ratios recorded but not printed', () => {
    const recorded = new Map([['a.x', record('a.x', 1)], ['b.x', record('b.x', 1)], ['c.x', record('c.x', 1)]]);
    const result = compare(new Map([['a.x', 0.86], ['b.x', 0.84], ['d.x', 2]]), recorded);
    expect(result.map((c) => [c.name, c.dropped, c.now])).to.deep.equal([['a.x', false, 0.86], ['b.x', true, 0.84], ['c.x', false, undefined], ['d.x', false, 2]]);
  });

  it('runs every bench:* script of package.json, and the recorded ratios of docs/performance.md belong to one of them', () => {
    const scripts = Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts)
      .filter((name) => name.startsWith('bench:') && name !== 'bench:all').map((name) => name.slice('bench:'.length));
    expect(BENCHES.map((bench) => bench.name).sort()).to.deep.equal(scripts.sort());
    for (const name of readRecorded(readFileSync('docs/performance.md', 'utf8')).keys()) {
      expect(BENCHES.map((bench) => bench.name), name).to.include(name.split('.')[0]);
    }
  });
});
