/** The start-up cache key's package digests: unchanged files are not read again; a changed one is. */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageDigests } from '#validation/adapters/fhir-definitions/package-digests.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('definitions: package digests remembered in the cache folder', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'package-digests-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads and hashes a file once; unchanged, its digest is remembered; replaced, it is read again', async () => {
    const cacheDir = path.join(dir, 'cache');
    const a = path.join(dir, 'a.tgz');
    const b = path.join(dir, 'b.tgz');
    writeFileSync(a, 'package a');
    writeFileSync(b, 'package b');

    const first = await packageDigests([a, b], cacheDir);
    expect(first.sha256).to.deep.equal([sha('package a'), sha('package b')]);
    // Read concurrently: which files were read matters, not the order they finished in.
    expect([...first.read.keys()].sort()).to.deep.equal([a, b]);

    const again = await packageDigests([a, b], cacheDir);
    expect(again.sha256).to.deep.equal(first.sha256);
    expect(again.read.size, 'nothing read').to.equal(0);

    // A new file at the same path (as npm or the artifact store write them): a new digest.
    rmSync(b);
    writeFileSync(b, 'package b, version 2');
    const changed = await packageDigests([a, b], cacheDir);
    expect(changed.sha256).to.deep.equal([sha('package a'), sha('package b, version 2')]);
    expect([...changed.read.keys()]).to.deep.equal([b]);

    // Without a cache folder: every file is read.
    expect((await packageDigests([a], undefined)).read.size).to.equal(1);
  });
});
