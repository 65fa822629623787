// The primitives the request and response shapes are written with.
import { z } from 'zod';
import { decodeCursor, decodeTimeCursor } from '../../platform/store/rows';

export const timestamp = z.iso.datetime({ offset: true });
export const uuid = z.uuid();

/** A cursor a list answered (`next_cursor`): anything else is refused with a reason before it reaches SQL. */
export const pageCursor = z
  .string()
  .max(200)
  .refine((c) => decodeCursor(c) !== undefined, 'not a cursor from a previous page');

/** A cursor a list ordered by time answered (`next_cursor`), refused likewise. */
export const timeCursor = z
  .string()
  .max(200)
  .refine((c) => decodeTimeCursor(c) !== undefined, 'not a cursor from a previous page');
