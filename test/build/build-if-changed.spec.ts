import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildIfChanged, buildInputs } from '#scripts/build/build-if-changed.js';

/** `npm start` builds only when a build input changed (scripts/build/build-if-changed.ts). */
describe('npm start: build only when the sources changed', () => {
  let root: string;
  let builds: number;
  const build = () => {
    builds += 1;
    mkdirSync(path.join(root, 'dist'), { recursive: true });
    writeFileSync(path.join(root, 'dist', 'package.json'), '{}');
    return true;
  };
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'build-stamp-'));
    builds = 0;
    write('package.json', '{"name":"x"}');
    write('tsconfig.json', '{}');
    write('services/a/src/main.ts', 'export const a = 1;');
    write('adapters/http/index.ts', 'export const b = 2;');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds the first time, then skips while nothing changed, even when files are touched', () => {
    expect(buildIfChanged(root, build)).to.deep.equal({ built: true, reason: 'no earlier build' });
    expect(buildIfChanged(root, build).built).to.equal(false);
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(root, 'services/a/src/main.ts'), later, later);
    expect(buildIfChanged(root, build).built).to.equal(false);
    expect(builds).to.equal(1);
  });

  it('builds again after a source, a new file, a config file or a deleted dist/ changed', () => {
    buildIfChanged(root, build);
    for (const change of [
      () => write('services/a/src/main.ts', 'export const a = 2;'),
      () => write('contracts/schemas/x.json', '{}'),
      () => write('tsconfig.json', '{"compilerOptions":{}}'),
      () => rmSync(path.join(root, 'dist'), { recursive: true }),
    ]) {
      change();
      expect(buildIfChanged(root, build)).to.include({ built: true });
      expect(buildIfChanged(root, build).built).to.equal(false);
    }
    expect(builds).to.equal(5);
  });

  it('ignores what is not a build input (node_modules, dist, data files) and keeps no stamp after a failed build', () => {
    buildIfChanged(root, build);
    write('services/a/node_modules/p/index.ts', 'x');
    write('services/a/artifacts/packages/p.tgz', 'x');
    expect(buildIfChanged(root, build).built).to.equal(false);
    expect(buildInputs(root)).to.deep.equal(['adapters/http/index.ts', 'package.json', 'services/a/src/main.ts', 'tsconfig.json']);
    write('services/a/src/main.ts', 'broken');
    expect(() => buildIfChanged(root, () => false)).to.throw(/build failed/);
    expect(buildIfChanged(root, build).built, 'the failed build left the old stamp').to.equal(true);
  });
});
