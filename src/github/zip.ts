/**
 * Reads one file out of a zip archive held in memory, with a cap on what it may inflate to: the
 * results artifact of a measuring run comes from a job that ran a pull request's code, so its
 * archive may claim one size and inflate to another (a zip bomb). Stored and deflated entries,
 * no zip64. Layout from PKWARE's APPNOTE.TXT (4.3.16 end of central directory, 4.3.12 central
 * directory header, 4.3.7 local file header): the sizes are taken from the central directory,
 * since a streaming writer leaves them zero in the local header.
 *
 * Read strictly: an archive that two readers could read two ways is refused, not interpreted.
 * Two entries of one name (one reader takes the first, another the last), a second end record
 * (one hidden in the archive comment points at another directory) and an entry whose bytes do
 * not match its CRC-32 all mean the archive was not written by the artifact toolkit.
 */
import { crc32, inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const MAX_END_SEARCH = 22 + 0xffff;

export class ZipError extends Error {}

export interface ZipEntry {
  name: string;
  method: number;
  /** CRC-32 of the unpacked bytes, from the central directory. */
  crc32: number;
  compressedSize: number;
  size: number;
  /** Offset of the local header. */
  local: number;
}

/**
 * Offsets of every end-of-central-directory record in the last 65,557 bytes: a signature whose
 * record either ends the archive (with its comment) or sits right after the directory it
 * describes. The same four bytes inside compressed data are neither, whatever they hold.
 */
function endRecords(zip: Buffer): number[] {
  const floor = Math.max(0, zip.length - MAX_END_SEARCH);
  const found: number[] = [];
  for (let at = zip.length - 22; at >= floor; at--) {
    if (zip.readUInt32LE(at) !== END_OF_CENTRAL_DIRECTORY) continue;
    const endsArchive = at + 22 + zip.readUInt16LE(at + 20) === zip.length;
    const followsDirectory = zip.readUInt32LE(at + 16) + zip.readUInt32LE(at + 12) === at;
    if (endsArchive || followsDirectory) found.push(at);
  }
  return found;
}

/** The archive's entries as its central directory lists them. */
export function listZip(zip: Buffer): ZipEntry[] {
  if (zip.length < 22) throw new ZipError('not a zip archive (shorter than an end-of-central-directory record)');
  const ends = endRecords(zip);
  if (ends.length === 0) throw new ZipError('not a zip archive (no end-of-central-directory record)');
  if (ends.length > 1) throw new ZipError(`it has ${ends.length} end-of-central-directory records, not one: the archive can be read two ways`);
  const end = ends[0]!;
  if (end + 22 + zip.readUInt16LE(end + 20) !== zip.length) throw new ZipError('its end-of-central-directory record does not end the archive');
  if (zip.readUInt32LE(end + 16) + zip.readUInt32LE(end + 12) !== end) throw new ZipError('its central directory does not end where the end record begins');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw new ZipError(`bad central directory entry ${i}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (names.has(name)) throw new ZipError(`it holds two entries named ${JSON.stringify(name)}: which one is meant cannot be told`);
    names.add(name);
    entries.push({
      name,
      method: zip.readUInt16LE(at + 10),
      crc32: zip.readUInt32LE(at + 16),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      local: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  if (at !== end) throw new ZipError(`its central directory holds more than the ${count} entries its end record counts`);
  return entries;
}

/** The bytes of one entry, inflated to at most `maxBytes` whatever the archive claims, checked against its size and CRC-32. */
export function readZipEntry(zip: Buffer, entry: ZipEntry, maxBytes: number): Buffer {
  if (entry.size > maxBytes) throw new ZipError(`${entry.name} is ${entry.size} bytes unpacked, more than ${maxBytes}`);
  if (entry.local + 30 > zip.length || zip.readUInt32LE(entry.local) !== LOCAL_FILE_HEADER) throw new ZipError(`bad local header for ${entry.name}`);
  const start = entry.local + 30 + zip.readUInt16LE(entry.local + 26) + zip.readUInt16LE(entry.local + 28);
  if (start + entry.compressedSize > zip.length) throw new ZipError(`${entry.name} runs past the end of the archive`);
  const data = zip.subarray(start, start + entry.compressedSize);
  let bytes: Buffer;
  if (entry.method === 0) {
    bytes = Buffer.from(data);
  } else if (entry.method === 8) {
    try {
      // maxOutputLength stops inflating at the cap instead of filling memory (Node's zlib docs).
      bytes = inflateRawSync(data, { maxOutputLength: maxBytes });
    } catch (e) {
      throw new ZipError(`${entry.name} cannot be inflated within ${maxBytes} bytes (${(e as Error).message})`);
    }
  } else {
    throw new ZipError(`${entry.name}: compression method ${entry.method} is not supported`);
  }
  if (bytes.length !== entry.size) throw new ZipError(`${entry.name} unpacks to ${bytes.length} bytes, but the archive says ${entry.size}`);
  const crc = crc32(bytes);
  if (crc !== entry.crc32) {
    throw new ZipError(`${entry.name} does not match its CRC-32 (the archive says ${hex(entry.crc32)}, its bytes give ${hex(crc)}): it was changed inside the archive`);
  }
  return bytes;
}

function hex(n: number): string {
  return n.toString(16).padStart(8, '0');
}

/** Every file of the archive (tests read back what was uploaded with it). */
export function readZip(zip: Buffer, maxBytes = 2 ** 30): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of listZip(zip)) if (!entry.name.endsWith('/')) files.set(entry.name, readZipEntry(zip, entry, maxBytes));
  return files;
}
