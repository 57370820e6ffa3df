/**
 * Reads a FHIR NPM package (`package.tgz`: gzip + tar) from bytes or a stream, defensively.
 *
 * Packages come from operators and from the internet, so the archive is treated as hostile:
 * path traversal, links and decompression bombs are rejected with a typed error, and every size
 * limit is enforced while inflating (we stop as soon as a limit is crossed instead of inflating
 * everything first). gunzip is computation, not I/O, so this stays in the domain.
 *
 * The tar parser is deliberately small: ustar headers, GNU long names (`././@LongLink`, type L)
 * and pax extended headers (type x, `path`). Only regular files under `package/` are returned.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

export type PackageArchiveErrorCode =
  | 'PATH_TRAVERSAL' // `..` segment
  | 'ABSOLUTE_PATH' // leading `/` or a drive letter
  | 'UNSAFE_PATH' // backslash, NUL or empty path
  | 'LINK_ENTRY' // symbolic or hard link
  | 'TOTAL_SIZE_LIMIT'
  | 'ENTRY_SIZE_LIMIT'
  | 'ENTRY_COUNT_LIMIT'
  | 'COMPRESSION_RATIO_LIMIT'
  | 'CORRUPT_GZIP'
  | 'CORRUPT_TAR'
  | 'TRUNCATED_TAR';

export class PackageArchiveError extends Error {
  override readonly name = 'PackageArchiveError';
  /** How many bytes had been inflated when reading stopped (shows a bomb was not fully inflated). */
  inflatedBytes?: number;
  constructor(
    readonly code: PackageArchiveErrorCode,
    message: string,
    /** The archive entry concerned, when there is one. */
    readonly entryPath?: string,
  ) {
    super(message);
  }
}

export interface PackageArchiveLimits {
  /** Sum of all entry sizes (uncompressed). Default 512 MiB. */
  maxTotalBytes: number;
  /** One entry's size. Default 100 MiB. */
  maxEntryBytes: number;
  /** Number of tar entries of any kind. Default 50,000. */
  maxEntries: number;
  /**
   * Inflated bytes per compressed byte. Real packages are around 10-20 (JSON); a bomb of zeros
   * is about 1,000. Only checked once `ratioCheckAfterBytes` have been inflated, because small
   * archives legitimately have odd ratios. Default 200.
   */
  maxCompressionRatio: number;
  /** Default 16 MiB. */
  ratioCheckAfterBytes: number;
}

export const defaultPackageArchiveLimits: Readonly<PackageArchiveLimits> = Object.freeze({
  maxTotalBytes: 512 * 1024 * 1024,
  maxEntryBytes: 100 * 1024 * 1024,
  maxEntries: 50_000,
  maxCompressionRatio: 200,
  ratioCheckAfterBytes: 16 * 1024 * 1024,
});

export interface ArchiveEntry {
  /** Path inside the archive, normalised to forward slashes, e.g. `package/StructureDefinition-x.json`. */
  path: string;
  data: Buffer;
}

export interface ReadPackageArchiveOptions {
  limits?: Partial<PackageArchiveLimits>;
  /**
   * Which regular files under `package/` to keep in memory (others are skipped while still
   * being size-checked). Default: every file under `package/`.
   */
  keep?: (path: string) => boolean;
}

const BLOCK = 512;

/** Reads every regular file under `package/` of a `.tgz`. Rejects with PackageArchiveError. */
export async function readPackageArchive(input: Buffer | Uint8Array | Readable, options: ReadPackageArchiveOptions = {}): Promise<ArchiveEntry[]> {
  const limits: PackageArchiveLimits = { ...defaultPackageArchiveLimits, ...options.limits };
  const parser = new TarParser(limits, options.keep ?? (() => true));
  // Larger output chunks than the 16 KiB default: fewer async turns on a 50 MB package.
  const gunzip = createGunzip({ chunkSize: 128 * 1024 });
  // Bytes are fed in slices so that inflation is paced by our reading (backpressure), never
  // racing ahead of the limits on a bomb handed over as one Buffer.
  const source = input instanceof Readable ? input : Readable.from(slices(Buffer.from(input.buffer, input.byteOffset, input.byteLength)));
  source.on('error', (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  let inflated = 0;
  try {
    for await (const data of gunzip) {
      const chunk: unknown = data;
      if (!Buffer.isBuffer(chunk)) throw new PackageArchiveError('CORRUPT_GZIP', 'package archive: the inflater gave something other than bytes');
      inflated += chunk.length;
      // bytesWritten: compressed bytes the inflater has consumed so far.
      const compressedBytes = gunzip.bytesWritten;
      if (inflated > limits.ratioCheckAfterBytes && compressedBytes > 0 && inflated / compressedBytes > limits.maxCompressionRatio) {
        throw new PackageArchiveError(
          'COMPRESSION_RATIO_LIMIT',
          `package archive expands more than ${limits.maxCompressionRatio}x (${inflated} bytes from ${compressedBytes}): refusing a likely decompression bomb`,
        );
      }
      // Tar padding and headers count too: a bomb made only of headers must not pass.
      if (inflated > limits.maxTotalBytes + limits.maxEntries * BLOCK * 2) {
        throw new PackageArchiveError('TOTAL_SIZE_LIMIT', `package archive is larger than ${limits.maxTotalBytes} bytes uncompressed`);
      }
      parser.push(chunk);
      if (parser.finished) break;
    }
  } catch (err) {
    if (err instanceof PackageArchiveError) {
      err.inflatedBytes ??= inflated;
      throw err;
    }
    // zlib's errors carry a Z_ code (Z_DATA_ERROR, Z_BUF_ERROR ...)
    if (err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('Z_')) {
      const wrapped = new PackageArchiveError('CORRUPT_GZIP', `package archive is not valid gzip data: ${err.message}`);
      wrapped.inflatedBytes = inflated;
      throw wrapped;
    }
    throw err;
  } finally {
    source.unpipe(gunzip);
    gunzip.destroy();
    if (!(source.destroyed || source.readableEnded)) source.destroy();
  }
  parser.end();
  return parser.entries;
}

const FEED_SLICE = 64 * 1024;

function* slices(buffer: Buffer): Generator<Buffer> {
  for (let pos = 0; pos < buffer.length; pos += FEED_SLICE) yield buffer.subarray(pos, pos + FEED_SLICE);
}

/** Header fields of the entry being read, after GNU/pax overrides. */
interface PendingOverrides {
  path?: string;
}

type ParserState =
  | { kind: 'header' }
  | { kind: 'body'; path: string; type: string; size: number; remaining: number; padding: number; chunks: Buffer[] | undefined };

class TarParser {
  readonly entries: ArchiveEntry[] = [];
  finished = false;
  private buffered: Buffer[] = [];
  private bufferedLength = 0;
  private state: ParserState = { kind: 'header' };
  private overrides: PendingOverrides = {};
  private entryCount = 0;
  private totalBytes = 0;
  private zeroBlocks = 0;
  private sawAnyHeader = false;

  constructor(
    private readonly limits: PackageArchiveLimits,
    private readonly keep: (path: string) => boolean,
  ) {}

  push(chunk: Buffer): void {
    this.buffered.push(chunk);
    this.bufferedLength += chunk.length;
    this.drain();
  }

  end(): void {
    if (this.finished) return;
    if (this.state.kind === 'body' || this.bufferedLength > 0) {
      const path = this.state.kind === 'body' ? this.state.path : undefined;
      throw new PackageArchiveError('TRUNCATED_TAR', `package archive ends in the middle of ${path ? `entry ${path}` : 'a tar header'}`, path);
    }
    if (!this.sawAnyHeader) throw new PackageArchiveError('CORRUPT_TAR', 'package archive contains no tar entries');
    // A missing end-of-archive marker after a complete entry is tolerated (some writers omit it).
  }

  private take(n: number): Buffer {
    const [first] = this.buffered;
    const all = first !== undefined && this.buffered.length === 1 ? first : Buffer.concat(this.buffered, this.bufferedLength);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.buffered = rest.length ? [rest] : [];
    this.bufferedLength = rest.length;
    return out;
  }

  private drain(): void {
    while (!this.finished) {
      const state = this.state;
      if (state.kind === 'header') {
        if (this.bufferedLength < BLOCK) return;
        this.readHeader(this.take(BLOCK));
        continue;
      }
      if (state.remaining > 0) {
        if (this.bufferedLength === 0) return;
        const n = Math.min(state.remaining, this.bufferedLength);
        const part = this.take(n);
        // Copy: the slice would otherwise pin gunzip's whole output chunk in memory.
        if (state.chunks) state.chunks.push(Buffer.from(part));
        state.remaining -= n;
        if (state.remaining > 0) return;
      }
      if (state.padding > 0) {
        if (this.bufferedLength < state.padding) return;
        this.take(state.padding);
        state.padding = 0;
      }
      this.finishEntry(state);
      this.state = { kind: 'header' };
    }
  }

  private readHeader(block: Buffer): void {
    if (isZeroBlock(block)) {
      this.zeroBlocks += 1;
      if (this.zeroBlocks >= 2) this.finished = true;
      return;
    }
    if (this.zeroBlocks > 0) throw new PackageArchiveError('CORRUPT_TAR', 'tar data continues after an empty block');
    this.sawAnyHeader = true;
    if (!checksumMatches(block)) throw new PackageArchiveError('CORRUPT_TAR', 'tar header checksum mismatch (corrupt or not a tar archive)');
    this.entryCount += 1;
    if (this.entryCount > this.limits.maxEntries) {
      throw new PackageArchiveError('ENTRY_COUNT_LIMIT', `package archive has more than ${this.limits.maxEntries} entries`);
    }
    const type = String.fromCharCode(block[156] || 0x30);
    const size = readSize(block.subarray(124, 136));
    const headerPath = readHeaderPath(block);
    const isMeta = type === 'L' || type === 'x' || type === 'g' || type === 'K';
    const path = isMeta ? headerPath : (this.overrides.path ?? headerPath);
    if (!isMeta) this.overrides = {};
    if (size > this.limits.maxEntryBytes) {
      throw new PackageArchiveError('ENTRY_SIZE_LIMIT', `package archive entry ${path} is ${size} bytes, more than the ${this.limits.maxEntryBytes} allowed`, path);
    }
    this.totalBytes += size;
    if (this.totalBytes > this.limits.maxTotalBytes) {
      throw new PackageArchiveError('TOTAL_SIZE_LIMIT', `package archive is larger than ${this.limits.maxTotalBytes} bytes uncompressed`, path);
    }
    if (!isMeta) checkEntryPath(path);
    if (type === '1' || type === '2') {
      throw new PackageArchiveError('LINK_ENTRY', `package archive entry ${path} is a ${type === '2' ? 'symbolic' : 'hard'} link, which packages must not contain`, path);
    }
    const keep = isMeta || ((type === '0' || type === '\0' || type === '7') && path.startsWith('package/') && this.keep(path));
    this.state = { kind: 'body', path, type, size, remaining: size, padding: (BLOCK - (size % BLOCK)) % BLOCK, chunks: keep ? [] : undefined };
  }

  private finishEntry(state: Extract<ParserState, { kind: 'body' }>): void {
    if (!state.chunks) return;
    const [first] = state.chunks;
    const data = first !== undefined && state.chunks.length === 1 ? first : Buffer.concat(state.chunks, state.size);
    switch (state.type) {
      case 'L':
        this.overrides.path = withoutTrailingNuls(data.toString('utf8'));
        return;
      case 'x': {
        const paxPath = parsePax(data).path;
        if (paxPath !== undefined) this.overrides.path = paxPath;
        return;
      }
      case 'g':
      case 'K':
        return;
      default:
        this.entries.push({ path: state.path, data });
    }
  }
}

function isZeroBlock(block: Buffer): boolean {
  for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

function checksumMatches(block: Buffer): boolean {
  const stored = parseOctal(block.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  return stored === sum;
}

/** A GNU long name ends in NULs (a loop: `/\0+$/` backtracks quadratically on a long run of NULs not at the end). */
function withoutTrailingNuls(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0) end--;
  return text.slice(0, end);
}

function parseOctal(field: Buffer): number {
  // linear: the first NUL matches and `.*` (dotAll) runs to the end at once
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  // linear: anchored, one character class
  if (!/^[0-7]+$/.test(text)) throw new PackageArchiveError('CORRUPT_TAR', `invalid octal number in tar header: ${JSON.stringify(text)}`);
  return parseInt(text, 8);
}

/** Size is octal, or GNU base-256 when the high bit of the first byte is set. */
function readSize(field: Buffer): number {
  const first = field[0] ?? 0;
  if (first & 0x80) {
    let value = first & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    return value;
  }
  return parseOctal(field);
}

function readString(field: Buffer): string {
  const nul = field.indexOf(0);
  return field.subarray(0, nul === -1 ? field.length : nul).toString('utf8');
}

function readHeaderPath(block: Buffer): string {
  const name = readString(block.subarray(0, 100));
  const isUstar = block.subarray(257, 262).toString('latin1') === 'ustar';
  const prefix = isUstar ? readString(block.subarray(345, 500)) : '';
  return prefix ? `${prefix}/${name}` : name;
}

/** pax records: "<len> <key>=<value>\n", len counting the whole record. */
function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let pos = 0;
  while (pos < data.length) {
    const space = data.indexOf(0x20, pos);
    if (space === -1) break;
    const len = parseInt(data.subarray(pos, space).toString('latin1'), 10);
    if (!Number.isFinite(len) || len <= 0 || pos + len > data.length) {
      throw new PackageArchiveError('CORRUPT_TAR', 'malformed pax extended header');
    }
    const record = data.subarray(space + 1, pos + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    pos += len;
  }
  return out;
}

function checkEntryPath(path: string): void {
  if (path === '' || path.includes('\0')) throw new PackageArchiveError('UNSAFE_PATH', 'package archive entry has an empty or NUL-containing name', path);
  if (path.includes('\\')) throw new PackageArchiveError('UNSAFE_PATH', `package archive entry ${path} contains a backslash`, path);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) /* linear: two characters */) {
    throw new PackageArchiveError('ABSOLUTE_PATH', `package archive entry ${path} has an absolute path`, path);
  }
  if (path.split('/').includes('..')) throw new PackageArchiveError('PATH_TRAVERSAL', `package archive entry ${path} escapes the package folder ('..')`, path);
}
