// The primitives every response shape is written with.
import { z } from 'zod';

export const timestamp = z.iso.datetime({ offset: true });
export const uuid = z.uuid();
