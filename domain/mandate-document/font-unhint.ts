// A TrueType font without its glyphs' instructions (hinting: programs fitting outlines to a coarse pixel grid). They
// are more than half the bytes of Liberation Sans' glyphs, and a mandate is read on screens and printers that draw
// the outlines well without them. The font-wide programs (fpgm, prep, cvt) stay: PDF readers expect them, and they are
// small. Glyph offsets are written in the long format.

/** Sum of a table's big-endian 32-bit words, zero-padded (the OpenType table checksum). */
function checksum(b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < b.length; i += 4) {
    const word =
      i + 4 <= b.length ? b.readUInt32BE(i) : Buffer.concat([b.subarray(i), Buffer.alloc(4)]).readUInt32BE(0);
    sum = (sum + word) >>> 0;
  }
  return sum;
}

const pad4 = (b: Buffer) => (b.length % 4 ? Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]) : b);

/** Component flags (OpenType glyf table). */
const ARGS_ARE_WORDS = 0x1;
const HAS_SCALE = 0x8;
const MORE_COMPONENTS = 0x20;
const HAS_X_AND_Y_SCALE = 0x40;
const HAS_TWO_BY_TWO = 0x80;
const HAS_INSTRUCTIONS = 0x100;

/** One glyph's description without its instructions. */
function unhintGlyph(g: Buffer): Buffer {
  if (g.length === 0) return g;
  const contours = g.readInt16BE(0);
  if (contours >= 0) {
    const at = 10 + 2 * contours; // after the header and the contours' end points: the instructions' length
    return Buffer.concat([g.subarray(0, at), Buffer.alloc(2), g.subarray(at + 2 + g.readUInt16BE(at))]);
  }
  const out = Buffer.from(g);
  let at = 10;
  let flags: number;
  do {
    flags = out.readUInt16BE(at);
    out.writeUInt16BE(flags & ~HAS_INSTRUCTIONS, at);
    at += 4 + (flags & ARGS_ARE_WORDS ? 4 : 2);
    at += flags & HAS_TWO_BY_TWO ? 8 : flags & HAS_X_AND_Y_SCALE ? 4 : flags & HAS_SCALE ? 2 : 0;
  } while (flags & MORE_COMPONENTS);
  return out.subarray(0, at); // the instructions after the last component, if any, cut off
}

export function withoutGlyphInstructions(font: Buffer): Buffer {
  const count = font.readUInt16BE(4);
  const tags: string[] = [];
  const tables = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const record = 12 + 16 * i;
    const tag = font.toString('latin1', record, record + 4);
    tags.push(tag);
    tables.set(
      tag,
      font.subarray(font.readUInt32BE(record + 8), font.readUInt32BE(record + 8) + font.readUInt32BE(record + 12)),
    );
  }
  const head = Buffer.from(tables.get('head')!);
  const loca = tables.get('loca')!;
  const glyf = tables.get('glyf')!;
  const glyphs = tables.get('maxp')!.readUInt16BE(4);
  const long = head.readInt16BE(50) === 1;
  const offset = (i: number) => (long ? loca.readUInt32BE(4 * i) : 2 * loca.readUInt16BE(2 * i));

  const parts: Buffer[] = [];
  const newLoca = Buffer.alloc(4 * (glyphs + 1));
  let end = 0;
  for (let i = 0; i < glyphs; i++) {
    const g = pad4(unhintGlyph(glyf.subarray(offset(i), offset(i + 1))));
    parts.push(g);
    end += g.length;
    newLoca.writeUInt32BE(end, 4 * (i + 1));
  }
  head.writeInt16BE(1, 50); // indexToLocFormat: long offsets
  head.writeUInt32BE(0, 8); // checkSumAdjustment, set once the whole file is known
  tables.set('head', head).set('loca', newLoca).set('glyf', Buffer.concat(parts));

  const directory = Buffer.alloc(12 + 16 * count);
  font.copy(directory, 0, 0, 12); // sfnt version and the search fields: the same tables
  const bodies: Buffer[] = [];
  let at = directory.length;
  tags.forEach((tag, i) => {
    const table = tables.get(tag)!;
    const record = 12 + 16 * i;
    directory.write(tag, record, 'latin1');
    directory.writeUInt32BE(checksum(table), record + 4);
    directory.writeUInt32BE(at, record + 8);
    directory.writeUInt32BE(table.length, record + 12);
    bodies.push(pad4(table));
    at += bodies.at(-1)!.length;
  });
  const out = Buffer.concat([directory, ...bodies]);
  const headAt = directory.readUInt32BE(12 + 16 * tags.indexOf('head') + 8);
  out.writeUInt32BE((0xb1b0afba - checksum(out)) >>> 0, headAt + 8);
  return out;
}
