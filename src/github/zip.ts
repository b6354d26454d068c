/**
 * Reads one file out of a zip archive held in memory, with a cap on what it may inflate to: the
 * results artifact of a measuring run comes from a job that ran a pull request's code, so its
 * archive may claim one size and inflate to another (a zip bomb). Stored and deflated entries,
 * no zip64. Layout from PKWARE's APPNOTE.TXT (4.3.16 end of central directory, 4.3.12 central
 * directory header, 4.3.7 local file header): the sizes are taken from the central directory,
 * since a streaming writer leaves them zero in the local header.
 */
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const MAX_END_SEARCH = 22 + 0xffff;

export class ZipError extends Error {}

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the local header. */
  local: number;
}

/** The archive's entries as its central directory lists them. */
export function listZip(zip: Buffer): ZipEntry[] {
  const floor = Math.max(0, zip.length - MAX_END_SEARCH);
  let end = zip.length - 22;
  while (end >= floor && zip.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) end--;
  if (end < floor) throw new ZipError('not a zip archive (no end-of-central-directory record)');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw new ZipError(`bad central directory entry ${i}`);
    const nameLength = zip.readUInt16LE(at + 28);
    entries.push({
      name: zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'),
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      local: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/** The bytes of one entry, inflated to at most `maxBytes` whatever the archive claims. */
export function readZipEntry(zip: Buffer, entry: ZipEntry, maxBytes: number): Buffer {
  if (entry.size > maxBytes) throw new ZipError(`${entry.name} is ${entry.size} bytes unpacked, more than ${maxBytes}`);
  if (entry.local + 30 > zip.length || zip.readUInt32LE(entry.local) !== LOCAL_FILE_HEADER) throw new ZipError(`bad local header for ${entry.name}`);
  const start = entry.local + 30 + zip.readUInt16LE(entry.local + 26) + zip.readUInt16LE(entry.local + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) {
    if (data.length > maxBytes) throw new ZipError(`${entry.name} is more than ${maxBytes} bytes`);
    return Buffer.from(data);
  }
  if (entry.method !== 8) throw new ZipError(`${entry.name}: compression method ${entry.method} is not supported`);
  try {
    // maxOutputLength stops inflating at the cap instead of filling memory (Node's zlib docs).
    return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch (e) {
    throw new ZipError(`${entry.name} cannot be inflated within ${maxBytes} bytes (${(e as Error).message})`);
  }
}

/** Every file of the archive (tests read back what was uploaded with it). */
export function readZip(zip: Buffer, maxBytes = 2 ** 30): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of listZip(zip)) if (!entry.name.endsWith('/')) files.set(entry.name, readZipEntry(zip, entry, maxBytes));
  return files;
}
