// Images decoded by sharp (libvips) under a pixel limit, to the end: bytes that claim PNG or JPEG must decode as
// that format, whole. A drawn signature comes back as a small PNG, so that embedding it in the mandate stays cheap.
import sharp from 'sharp';
import { IMAGE_LIMITS, SIGNATURE_FIT } from './limits';
import { refuse } from './refusal';

sharp.cache(false);
sharp.concurrency(1);

export type ImageMime = 'image/png' | 'image/jpeg';
export type ImagePurpose = 'identity' | 'signature';

const FORMAT: Record<ImageMime, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg' };

export async function inspectImage(
  bytes: Uint8Array,
  claimed: ImageMime,
  purpose: ImagePurpose,
): Promise<{ width: number; height: number; png?: Uint8Array }> {
  const maxPixels = purpose === 'identity' ? IMAGE_LIMITS.identityPixels : IMAGE_LIMITS.signaturePixels;
  const options = { limitInputPixels: maxPixels, failOn: 'error' as const };
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(bytes, { ...options, limitInputPixels: false }).metadata(); // the header only: the size, to name it
  } catch (err) {
    // Not even a header: text behind an image's signature (HTML, say) is not an image; other bytes, a damaged one.
    if (looksLikeText(bytes.subarray(claimed === 'image/png' ? 8 : 2, 520))) {
      return refuse(
        'not-an-image',
        `starts like a ${FORMAT[claimed].toUpperCase()} image but is not one (text follows its signature)`,
      );
    }
    return refuse('unreadable-image', `cannot be decoded as an image (${firstLine(err)})`);
  }
  if (meta.format !== FORMAT[claimed])
    refuse(
      'not-an-image',
      `starts like a ${FORMAT[claimed].toUpperCase()} image but is not one (${meta.format ?? 'unknown'} content)`,
    );
  const { width = 0, height = 0 } = meta;
  if (Math.max(width, height) > IMAGE_LIMITS.side) {
    refuse('image-too-large', `is ${width}×${height} pixels, over the limit of ${IMAGE_LIMITS.side} pixels on a side`);
  }
  if (width * height > maxPixels) {
    refuse(
      'image-too-large',
      `is ${width}×${height} pixels, over the limit of ${maxPixels / 1e6} megapixels for ${purpose === 'identity' ? 'an identity image' : 'a signature'}`,
    );
  }
  try {
    if (purpose === 'signature') {
      const png = await sharp(bytes, options)
        .rotate()
        .resize({ ...SIGNATURE_FIT, fit: 'inside', withoutEnlargement: true })
        .png()
        .toBuffer();
      return { width, height, png };
    }
    // Decoded to the end (a JPEG shrinks on load: every block is still read), nothing kept.
    await sharp(bytes, options).resize({ width: 256, height: 256, fit: 'inside' }).raw().toBuffer();
    return { width, height };
  } catch (err) {
    return refuse('unreadable-image', `cannot be decoded as an image (${firstLine(err)})`);
  }
}

/** Mostly printable ASCII and whitespace, as markup or script is. */
function looksLikeText(b: Uint8Array): boolean {
  if (b.length === 0) return false;
  const printable = b.filter((c) => (c >= 0x20 && c < 0x7f) || c === 0x09 || c === 0x0a || c === 0x0d).length;
  return printable / b.length > 0.9;
}

const firstLine = (err: unknown) => String((err as Error).message ?? err).split('\n')[0];
