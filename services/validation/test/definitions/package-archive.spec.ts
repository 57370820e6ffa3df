import { expect } from 'chai';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { PackageArchiveError, readPackageArchive, type PackageArchiveErrorCode } from '#validation/domain/engine/definitions/package-archive.js';
import { tar, tarHeader, tgz } from './support/tar-writer.js';

const MiB = 1024 * 1024;

async function rejection(promise: Promise<unknown>): Promise<PackageArchiveError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(PackageArchiveError);
    return err as PackageArchiveError;
  }
  throw new Error('expected a PackageArchiveError, but the archive was accepted');
}

async function expectCode(input: Buffer | Readable, code: PackageArchiveErrorCode, options?: Parameters<typeof readPackageArchive>[1]): Promise<PackageArchiveError> {
  const err = await rejection(readPackageArchive(input, options));
  expect(err.code, err.message).to.equal(code);
  return err;
}

describe('package archive reader (package.tgz)', () => {
  describe('tar format', () => {
    it('applies GNU long names (././@LongLink) and pax path headers to the next entry', async () => {
      const longName = `package/${'a'.repeat(120)}.json`;
      const paxName = `package/${'b'.repeat(130)}.json`;
      const paxRecord = (key: string, value: string) => {
        const body = ` ${key}=${value}\n`;
        let len = body.length + 1;
        while (`${len}${body}`.length !== len) len = `${len}${body}`.length;
        return `${len}${body}`;
      };
      const archive = tgz([
        { name: '././@LongLink', type: 'L', data: `${longName}\0` },
        { name: 'package/truncated-name.json', data: '{"a":1}' },
        { name: 'PaxHeaders/x', type: 'x', data: paxRecord('path', paxName) },
        { name: 'package/short.json', data: '{"b":2}' },
        { name: 'x.json', prefix: 'package/sub', data: '{"c":3}' },
      ]);
      const entries = await readPackageArchive(archive);
      expect(entries.map((e) => e.path)).to.deep.equal([longName, paxName, 'package/sub/x.json']);
      expect(entries[0]?.data.toString()).to.equal('{"a":1}');
    });

    it('ignores directories and files outside package/', async () => {
      const entries = await readPackageArchive(tgz([
        { name: 'package/', type: '5' },
        { name: 'other/readme.txt', data: 'hello' },
        { name: 'package/package.json', data: '{}' },
      ]));
      expect(entries.map((e) => e.path)).to.deep.equal(['package/package.json']);
    });
  });

  describe('hostile archives', () => {
    it('rejects a ../ path', async () => {
      const err = await expectCode(tgz([{ name: 'package/../evil.json', data: '{}' }]), 'PATH_TRAVERSAL');
      expect(err.entryPath).to.equal('package/../evil.json');
      await expectCode(tgz([{ name: '../evil.json', data: '{}' }]), 'PATH_TRAVERSAL');
    });

    it('rejects a ../ path hidden in a GNU long name', async () => {
      await expectCode(tgz([{ name: '././@LongLink', type: 'L', data: `package/${'x/'.repeat(60)}../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../evil.json\0` }, { name: 'package/ok.json', data: '{}' }]), 'PATH_TRAVERSAL');
    });

    it('rejects absolute paths and backslashes', async () => {
      await expectCode(tgz([{ name: '/etc/passwd', data: 'x' }]), 'ABSOLUTE_PATH');
      await expectCode(tgz([{ name: 'C:/windows/evil.json', data: 'x' }]), 'ABSOLUTE_PATH');
      await expectCode(tgz([{ name: 'package\\..\\evil.json', data: 'x' }]), 'UNSAFE_PATH');
    });

    it('rejects symbolic and hard links', async () => {
      await expectCode(tgz([{ name: 'package/link.json', type: '2', linkName: '/etc/passwd' }]), 'LINK_ENTRY');
      await expectCode(tgz([{ name: 'package/hard.json', type: '1', linkName: 'package/package.json' }]), 'LINK_ENTRY');
    });

    it('rejects a decompression bomb by total size, early, without inflating it all', async () => {
      // 20 entries of 512 KiB of zeros = 10 MiB inflated, about 10 KiB compressed.
      const zeros = Buffer.alloc(512 * 1024);
      const bomb = tgz(Array.from({ length: 20 }, (_, i) => ({ name: `package/zero-${i}.json`, data: zeros })));
      expect(bomb.length).to.be.lessThan(64 * 1024);
      const err = await expectCode(bomb, 'TOTAL_SIZE_LIMIT', { limits: { maxTotalBytes: MiB } });
      expect(err.inflatedBytes).to.be.a('number').and.lessThan(3 * MiB);
    });

    it('with default limits, rejects a 1 GiB bomb after inflating only a few MiB', async () => {
      // Concatenated gzip members: one compressed MiB of zeros repeated, 16 entries of 64 MiB.
      const zeroMember = gzipSync(Buffer.alloc(MiB));
      const parts: Buffer[] = [];
      for (let e = 0; e < 16; e++) {
        parts.push(gzipSync(tarHeader({ name: `package/zeros-${e}.json` }, 64 * MiB)));
        for (let i = 0; i < 64; i++) parts.push(zeroMember);
      }
      const bomb = Buffer.concat(parts);
      expect(bomb.length).to.be.lessThan(2 * MiB);
      const err = await expectCode(bomb, 'COMPRESSION_RATIO_LIMIT');
      expect(err.inflatedBytes).to.be.lessThan(32 * MiB);
    });

    it('with default limits, rejects an entry whose header claims 1 GiB, before reading it', async () => {
      const err = await expectCode(gzipSync(Buffer.concat([tarHeader({ name: 'package/huge.json' }, 1024 * MiB), Buffer.alloc(4096)])), 'ENTRY_SIZE_LIMIT');
      expect(err.message).to.contain('package/huge.json');
    });

    it('rejects an entry larger than the single-entry limit from its header, before reading it', async () => {
      const big = tgz([{ name: 'package/big.json', data: Buffer.alloc(10 * MiB) }]);
      const err = await expectCode(big, 'ENTRY_SIZE_LIMIT', { limits: { maxEntryBytes: MiB } });
      expect(err.inflatedBytes).to.be.lessThan(MiB);
    });

    it('rejects a suspicious compression ratio while inflating', async () => {
      const big = tgz([{ name: 'package/zeros.json', data: Buffer.alloc(10 * MiB) }]);
      const err = await expectCode(big, 'COMPRESSION_RATIO_LIMIT', { limits: { ratioCheckAfterBytes: MiB, maxCompressionRatio: 100 } });
      expect(err.inflatedBytes).to.be.lessThan(4 * MiB);
    });

    it('rejects too many entries', async () => {
      const many = tgz(Array.from({ length: 30 }, (_, i) => ({ name: `package/f${i}.json`, data: '{}' })));
      await expectCode(many, 'ENTRY_COUNT_LIMIT', { limits: { maxEntries: 10 } });
    });

    it('reports a truncated tar (entry cut short) clearly', async () => {
      const whole = tar([{ name: 'package/package.json', data: 'x'.repeat(2000) }], { endMarker: false });
      const err = await expectCode(gzipSync(whole.subarray(0, 1024)), 'TRUNCATED_TAR');
      expect(err.message).to.contain('package/package.json');
    });

    it('reports a truncated gzip stream as corrupt gzip', async () => {
      const archive = tgz([{ name: 'package/package.json', data: 'y'.repeat(5000) }]);
      const err = await expectCode(archive.subarray(0, archive.length - 30), 'CORRUPT_GZIP');
      expect(err.message).to.match(/not valid gzip/);
    });

    it('reports data that is not gzip at all', async () => {
      await expectCode(Buffer.from('this is not a tgz file, just text'), 'CORRUPT_GZIP');
    });

    it('reports gzip data that is not a tar archive (bad header checksum)', async () => {
      await expectCode(gzipSync(Buffer.alloc(2048, 0x41)), 'CORRUPT_TAR');
    });

    it('reports a header whose size field is garbage', async () => {
      const header = tarHeader({ name: 'package/a.json' }, 1);
      header.write('zzzzzzzzzzz\0', 124, 'latin1');
      // Recompute the checksum so that only the size field is wrong.
      header.fill(0x20, 148, 156);
      let sum = 0;
      for (const b of header) sum += b;
      header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
      await expectCode(gzipSync(Buffer.concat([header, Buffer.alloc(1536)])), 'CORRUPT_TAR');
    });
  });
});
