// Builds the browser pages' scripts into dist/pages/ (scripts/setup.sh runs it; it takes well under a second).
import { buildPages } from '../web/page-build';

await buildPages();
console.log('pages built: dist/pages/');
