import { inflateRawSync } from 'node:zlib';

/**
 * Finds the thumbnail of a 3MF (an OPC zip package) by reading its central directory: the target
 * of the package's thumbnail relationship in `_rels/.rels`, else `Metadata/thumbnail.png`.
 * Reads only the bytes it needs through `read`, so the file is never loaded whole. Answers
 * undefined for anything that is not such a zip or has no usable thumbnail.
 */
export interface RandomAccessSource {
  size: number;
  read(start: number, length: number): Promise<Buffer>;
}

interface CentralEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_CENTRAL_DIRECTORY = 16 * 1024 * 1024;
const MAX_RELS = 1024 * 1024;
const THUMBNAIL_RELATIONSHIP = 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail';

export async function readZipThumbnail(source: RandomAccessSource, maxBytes: number): Promise<Buffer | undefined> {
  const entries = await centralDirectory(source);
  if (!entries) return undefined;
  const byName = new Map(entries.map((entry) => [entry.name.toLowerCase(), entry]));
  const rels = byName.get('_rels/.rels');
  let target: string | undefined;
  if (rels) {
    const xml = await readEntry(source, rels, MAX_RELS);
    if (xml) target = thumbnailTarget(xml.toString('utf8'));
  }
  const entry = (target && byName.get(target.replace(/^\/+/, '').toLowerCase())) || byName.get('metadata/thumbnail.png');
  return entry ? readEntry(source, entry, maxBytes) : undefined;
}

function thumbnailTarget(xml: string): string | undefined {
  for (const match of xml.matchAll(/<Relationship\b([^>]*)\/?>/g)) {
    const attributes = match[1] ?? '';
    const type = /\bType\s*=\s*"([^"]*)"/.exec(attributes)?.[1];
    const target = /\bTarget\s*=\s*"([^"]*)"/.exec(attributes)?.[1];
    if (type === THUMBNAIL_RELATIONSHIP && target) return decodedPartName(target);
  }
  return undefined;
}

/** A relationship target as a part name; a malformed %-escape names no part (the thumbnail is skipped). */
function decodedPartName(target: string): string | undefined {
  try {
    return decodeURIComponent(target);
  } catch {
    return undefined;
  }
}

async function centralDirectory(source: RandomAccessSource): Promise<CentralEntry[] | undefined> {
  if (source.size < 22) return undefined;
  const tailLength = Math.min(source.size, 22 + 0xffff);
  const tailStart = source.size - tailLength;
  const tail = await source.read(tailStart, tailLength);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i -= 1) {
    if (tail.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let cdOffset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || tail.readUInt32LE(locator) !== ZIP64_LOCATOR) return undefined;
    const recordOffset = Number(tail.readBigUInt64LE(locator + 8));
    if (recordOffset + 56 > source.size) return undefined;
    const record = await source.read(recordOffset, 56);
    if (record.readUInt32LE(0) !== ZIP64_EOCD) return undefined;
    count = Number(record.readBigUInt64LE(32));
    cdSize = Number(record.readBigUInt64LE(40));
    cdOffset = Number(record.readBigUInt64LE(48));
  }
  if (cdSize > MAX_CENTRAL_DIRECTORY || cdOffset + cdSize > source.size) return undefined;
  const cd = await source.read(cdOffset, cdSize);
  const entries: CentralEntry[] = [];
  let at = 0;
  for (let i = 0; i < count && at + 46 <= cd.length; i += 1) {
    if (cd.readUInt32LE(at) !== CENTRAL) return undefined;
    const nameLength = cd.readUInt16LE(at + 28);
    const extraLength = cd.readUInt16LE(at + 30);
    const commentLength = cd.readUInt16LE(at + 32);
    const entry: CentralEntry = {
      flags: cd.readUInt16LE(at + 8),
      method: cd.readUInt16LE(at + 10),
      compressedSize: cd.readUInt32LE(at + 20),
      size: cd.readUInt32LE(at + 24),
      localHeaderOffset: cd.readUInt32LE(at + 42),
      name: cd.toString('utf8', at + 46, at + 46 + nameLength),
    };
    applyZip64Extra(entry, cd.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength));
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Sizes and offsets of 0xffffffff live in the zip64 extra field (id 1), in this order. */
function applyZip64Extra(entry: CentralEntry, extra: Buffer): void {
  let at = 0;
  while (at + 4 <= extra.length) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 1) {
      let field = at + 4;
      const next = (): number | undefined => {
        if (field + 8 > at + 4 + length) return undefined;
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = next() ?? entry.size;
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next() ?? entry.compressedSize;
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next() ?? entry.localHeaderOffset;
      return;
    }
    at += 4 + length;
  }
}

async function readEntry(source: RandomAccessSource, entry: CentralEntry, maxBytes: number): Promise<Buffer | undefined> {
  const encrypted = (entry.flags & 1) !== 0;
  if (encrypted || entry.size > maxBytes || entry.compressedSize > maxBytes) return undefined;
  if (entry.method !== 0 && entry.method !== 8) return undefined;
  if (entry.localHeaderOffset + 30 > source.size) return undefined;
  const header = await source.read(entry.localHeaderOffset, 30);
  if (header.readUInt32LE(0) !== LOCAL) return undefined;
  const dataStart = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (dataStart + entry.compressedSize > source.size) return undefined;
  const data = await source.read(dataStart, entry.compressedSize);
  if (entry.method === 0) return data;
  try {
    const inflated = inflateRawSync(data, { maxOutputLength: maxBytes });
    return inflated.length === entry.size ? inflated : undefined;
  } catch {
    return undefined;
  }
}
