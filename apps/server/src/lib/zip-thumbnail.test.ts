import { describe, expect, it } from 'vitest';
import { zipArchive as zip } from '../../test/helpers/zip-archive.js';
import { readZipThumbnail, type RandomAccessSource } from './zip-thumbnail.js';

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
