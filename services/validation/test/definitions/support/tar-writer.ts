/**
 * A tiny tar writer for hand-built test archives (hostile ones included: the point is to write
 * entries no well-behaved tar tool would produce).
 */
import { gzipSync } from 'node:zlib';

export interface TarEntrySpec {
  name: string;
  data?: string | Buffer;
  /** '0' file (default), '2' symlink, '1' hardlink, '5' directory, 'L' GNU long name, 'x' pax header. */
  type?: string;
  linkName?: string;
  /** Write this size in the header instead of the data length (for lying headers). */
  declaredSize?: number;
  /** Put the name in the ustar prefix field (for names longer than 100). */
  prefix?: string;
}

export function tarHeader(spec: TarEntrySpec, size: number): Buffer {
  const h = Buffer.alloc(512, 0);
  h.write(spec.name.slice(0, 100), 0, 'utf8');
  h.write('0000644\0', 100, 'latin1');
  h.write('0000000\0', 108, 'latin1');
  h.write('0000000\0', 116, 'latin1');
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  h.write('00000000000\0', 136, 'latin1');
  h.write(spec.type ?? '0', 156, 'latin1');
  if (spec.linkName) h.write(spec.linkName.slice(0, 100), 157, 'utf8');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  if (spec.prefix) h.write(spec.prefix.slice(0, 155), 345, 'utf8');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

function padded(data: Buffer): Buffer {
  const pad = (512 - (data.length % 512)) % 512;
  return pad ? Buffer.concat([data, Buffer.alloc(pad)]) : data;
}

export function tar(entries: TarEntrySpec[], { endMarker = true } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : (e.data ?? Buffer.alloc(0));
    parts.push(tarHeader(e, e.declaredSize ?? data.length), padded(data));
  }
  if (endMarker) parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function tgz(entries: TarEntrySpec[], options?: { endMarker?: boolean }): Buffer {
  return gzipSync(tar(entries, options));
}

/** A minimal valid FHIR package as tar entries. */
export function packageEntries(manifest: Record<string, unknown>, resources: Record<string, unknown>[] = [], extra: TarEntrySpec[] = []): TarEntrySpec[] {
  return [
    { name: 'package/package.json', data: JSON.stringify(manifest) },
    ...resources.map((r) => ({ name: `package/${String(r.resourceType)}-${String(r.id)}.json`, data: JSON.stringify(r) })),
    ...extra,
  ];
}
