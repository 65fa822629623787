// The pixel size an image codec's own header declares, read without decoding: a JPEG's SOF marker, a JPEG 2000
// codestream's SIZ marker. A PDF image dictionary can declare a small /Width and /Height over a huge codestream.
export function imageCodecPixels(codec: string, data: Uint8Array): number {
  if (codec === 'DCTDecode' || codec === 'DCT') return jpegPixels(data);
  if (codec === 'JPXDecode') return jpxPixels(data);
  return 0;
}

export function jpegPixels(d: Uint8Array): number {
  let i = 2;
  while (i + 9 < d.length) {
    if (d[i] !== 0xff) {
      i++;
      continue;
    }
    const marker = d[i + 1]!;
    if (marker === 0xff || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += marker === 0xff ? 1 : 2;
      continue;
    }
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return ((d[i + 5]! << 8) | d[i + 6]!) * ((d[i + 7]! << 8) | d[i + 8]!);
    }
    if (marker === 0xda) return 0; // start of scan before any frame header
    i += 2 + ((d[i + 2]! << 8) | d[i + 3]!);
  }
  return 0;
}

export function jpxPixels(d: Uint8Array): number {
  // The SIZ marker (FF 51) of the codestream, in a JP2 box or bare: Xsiz, Ysiz, XOsiz, YOsiz as 32-bit integers.
  const buf = Buffer.from(d.buffer, d.byteOffset, Math.min(d.byteLength, 64 * 1024));
  const at = buf.indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51]));
  if (at < 0 || at + 24 > buf.length) return 0;
  const x = buf.readUInt32BE(at + 8) - buf.readUInt32BE(at + 16);
  const y = buf.readUInt32BE(at + 12) - buf.readUInt32BE(at + 20);
  return Math.max(0, x) * Math.max(0, y);
}
