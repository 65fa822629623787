// Vitest global set-up: the pages' scripts built from the sources as they are (well under a second), so a browser
// test never drives an older build.
import { buildPages } from '../../web/page-build';

export default async function setup(): Promise<void> {
  await buildPages();
}
