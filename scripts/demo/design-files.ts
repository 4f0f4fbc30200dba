/**
 * Real design files for the demo: a 3MF (core specification: content types, the model
 * relationship and a thumbnail relationship) holding a triangle mesh, and its PNG thumbnail.
 */
import { crc32, deflateSync } from 'node:zlib';
import { zipArchive } from '../../apps/server/test/helpers/zip-archive.js';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `size`×`size` RGB PNG: the part's outline in `colour` on a light background. */
export function thumbnailPng(colour: [number, number, number], shape: (x: number, y: number) => boolean, size = 128): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y += 1) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x += 1) {
      const inside = shape((x + 0.5) / size, (y + 0.5) / size);
      const [r, g, b] = inside ? colour : [244, 246, 248];
      row.set([r, g, b], 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Boxes (x, y, z, width, depth, height in mm) as one closed triangle mesh. */
function boxesModel(boxes: [number, number, number, number, number, number][], title: string): string {
  const vertices: string[] = [];
  const triangles: string[] = [];
  for (const [x, y, z, w, d, h] of boxes) {
    const base = vertices.length;
    for (const [dx, dy, dz] of [
      [0, 0, 0],
      [w, 0, 0],
      [w, d, 0],
      [0, d, 0],
      [0, 0, h],
      [w, 0, h],
      [w, d, h],
      [0, d, h],
    ] as const) {
      vertices.push(`<vertex x="${x + dx}" y="${y + dy}" z="${z + dz}"/>`);
    }
    for (const [a, b, c] of [
      [0, 2, 1],
      [0, 3, 2],
      [4, 5, 6],
      [4, 6, 7],
      [0, 1, 5],
      [0, 5, 4],
      [1, 2, 6],
      [1, 6, 5],
      [2, 3, 7],
      [2, 7, 6],
      [3, 0, 4],
      [3, 4, 7],
    ] as const) {
      triangles.push(`<triangle v1="${base + a}" v2="${base + b}" v3="${base + c}"/>`);
    }
  }
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">' +
    `<metadata name="Title">${title}</metadata><metadata name="Designer">Manifold demo</metadata>` +
    `<resources><object id="1" type="model"><mesh><vertices>${vertices.join('')}</vertices>` +
    `<triangles>${triangles.join('')}</triangles></mesh></object></resources>` +
    '<build><item objectid="1"/></build></model>'
  );
}

/** A 3MF package of the boxes with `thumbnail` as its package thumbnail. */
export function threeMf(title: string, boxes: [number, number, number, number, number, number][], thumbnail: Buffer): Buffer {
  const contentTypes =
    '<?xml version="1.0" encoding="UTF-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>' +
    '<Default Extension="png" ContentType="image/png"/></Types>';
  const rels =
    '<?xml version="1.0" encoding="UTF-8"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>' +
    '<Relationship Target="/Metadata/thumbnail.png" Id="rel1" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail"/>' +
    '</Relationships>';
  return zipArchive([
    { name: '[Content_Types].xml', data: Buffer.from(contentTypes), deflate: true },
    { name: '_rels/.rels', data: Buffer.from(rels), deflate: true },
    { name: '3D/3dmodel.model', data: Buffer.from(boxesModel(boxes, title)), deflate: true },
    { name: 'Metadata/thumbnail.png', data: thumbnail },
  ]);
}

export interface DemoDesign {
  designName: string;
  description: string;
  fileName: string;
  threeMf: Buffer;
  thumbnail: Buffer;
}

/** The demo's three parts: an L bracket, a hinge leaf and a spacer. */
export function demoDesigns(): DemoDesign[] {
  const make = (
    designName: string,
    description: string,
    colour: [number, number, number],
    shape: (x: number, y: number) => boolean,
    boxes: [number, number, number, number, number, number][],
  ): DemoDesign => {
    const thumbnail = thumbnailPng(colour, shape);
    const fileName = `${designName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.3mf`;
    return { designName, description, fileName, thumbnail, threeMf: threeMf(designName, boxes, thumbnail) };
  };
  return [
    make(
      'L Bracket',
      'M6 mounting bracket, 40 × 40 × 20 mm, PETG',
      [34, 139, 230],
      (x, y) => (x > 0.15 && x < 0.35 && y > 0.15 && y < 0.85) || (x > 0.15 && x < 0.85 && y > 0.65 && y < 0.85),
      [
        [0, 0, 0, 40, 20, 5],
        [0, 0, 0, 5, 20, 40],
      ],
    ),
    make(
      'Hinge Leaf',
      'Hinge leaf with a 4 mm pin channel, PLA',
      [250, 82, 82],
      (x, y) => x > 0.15 && x < 0.85 && y > 0.35 && y < 0.65 && !(x > 0.7 && y > 0.45 && y < 0.55),
      [
        [0, 0, 0, 50, 25, 3],
        [0, 25, 0, 50, 6, 6],
      ],
    ),
    make(
      'Cable Spacer',
      'Cable spacer for 8 mm looms, TPU',
      [64, 192, 87],
      (x, y) => (x - 0.5) ** 2 + (y - 0.5) ** 2 < 0.13 && (x - 0.5) ** 2 + (y - 0.5) ** 2 > 0.02,
      [[0, 0, 0, 16, 16, 10]],
    ),
  ];
}
