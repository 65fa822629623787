// The API's operations by area, each beside what the reference says of it; in the order the reference lists them.
import * as service from './service';
import * as workspace from './workspace';
import * as govFr from './gov-fr';
import * as peppol from './peppol';
import * as wizard from './wizard';

export const CATALOGUE = [service, workspace, govFr, peppol, wizard];
