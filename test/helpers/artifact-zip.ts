/** Reads back the zip archives the toolkit uploaded (the same reader report mode extracts with). */
import { crc32, deflateRawSync } from 'node:zlib';

export { readZip } from '../../src/github/zip.js';

export interface ZipFile {
  name: string;
  data: Buffer | string;
  /** Written into the headers instead of the data's CRC-32 (to forge a changed entry). */
  crc?: number;
  stored?: boolean;
}

/**
 * A zip archive as PKWARE's APPNOTE lays it out (local headers, central directory, end record),
 * with every field under the test's control: the artifact toolkit never writes a forged one.
 */
export function buildZip(files: ZipFile[], options: { comment?: Buffer } = {}): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const data = Buffer.from(file.data);
    const packed = file.stored ? data : deflateRawSync(data);
    const name = Buffer.from(file.name);
    const crc = file.crc ?? crc32(data);
    const method = file.stored ? 0 : 8;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    writeEntryFields(local, 8, { method, crc, packed: packed.length, size: data.length, name: name.length });
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    writeEntryFields(header, 10, { method, crc, packed: packed.length, size: data.length, name: name.length });
    header.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    central.push(header, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const comment = options.comment ?? Buffer.alloc(0);
  return Buffer.concat([...locals, directory, endRecord(files.length, directory.length, offset, comment.length), comment]);
}

/**
 * The fields a local header (from offset 8) and a central directory header (from offset 10)
 * share, in the same order: method, time and date (left zero), CRC-32, sizes, name length.
 */
function writeEntryFields(header: Buffer, at: number, e: { method: number; crc: number; packed: number; size: number; name: number }): void {
  header.writeUInt16LE(e.method, at);
  header.writeUInt32LE(e.crc, at + 6);
  header.writeUInt32LE(e.packed, at + 10);
  header.writeUInt32LE(e.size, at + 14);
  header.writeUInt16LE(e.name, at + 18);
}

/** An end-of-central-directory record (APPNOTE 4.3.16). */
export function endRecord(count: number, directorySize: number, directoryOffset: number, commentLength = 0): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(directoryOffset, 16);
  end.writeUInt16LE(commentLength, 20);
  return end;
}
