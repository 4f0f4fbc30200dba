import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readZipThumbnail, type RandomAccessSource } from './zip-thumbnail.js';

function zip(entries: { name: string; data: Buffer; deflate?: boolean }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const data = entry.deflate ? deflateRawSync(entry.data) : entry.data;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(entry.deflate ? 8 : 0, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.deflate ? 8 : 0, 10);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function source(bytes: Buffer): RandomAccessSource & { reads: number } {
  const counted = {
    size: bytes.length,
    reads: 0,
    async read(start: number, length: number) {
      counted.reads += 1;
      return bytes.subarray(start, start + length);
    },
  };
  return counted;
}

const rels = (target: string) =>
  Buffer.from(
    `<Relationships><Relationship Id="t" Target="${target}" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail"/></Relationships>`,
  );

describe('readZipThumbnail', () => {
  it('follows the thumbnail relationship and inflates the entry', async () => {
    const picture = Buffer.from('picture bytes '.repeat(100));
    const archive = zip([
      { name: '_rels/.rels', data: rels('/Metadata/Custom%20Thumb.png'), deflate: true },
      { name: 'Metadata/thumbnail.png', data: Buffer.from('not this one') },
      { name: 'Metadata/Custom Thumb.png', data: picture, deflate: true },
    ]);
    const reader = source(archive);
    expect((await readZipThumbnail(reader, 1024 * 1024))?.equals(picture)).toBe(true);
    expect(reader.reads).toBeLessThanOrEqual(6);
  });

  it('falls back to Metadata/thumbnail.png and refuses oversized or non-zip input', async () => {
    const picture = Buffer.from('png');
    expect(
      (await readZipThumbnail(source(zip([{ name: 'Metadata/thumbnail.png', data: picture }])), 1024))?.equals(picture),
    ).toBe(true);
    expect(
      await readZipThumbnail(source(zip([{ name: 'Metadata/thumbnail.png', data: Buffer.alloc(2048) }])), 1024),
    ).toBeUndefined();
    expect(await readZipThumbnail(source(zip([{ name: '3D/model', data: picture }])), 1024)).toBeUndefined();
    expect(await readZipThumbnail(source(Buffer.from('solid cube\nendsolid\n'.repeat(10))), 1024)).toBeUndefined();
    const truncated = zip([{ name: 'Metadata/thumbnail.png', data: picture }]);
    expect(await readZipThumbnail(source(truncated.subarray(10)), 1024)).toBeUndefined();
  });
});
