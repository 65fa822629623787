// The approval deadline as milliseconds. The configuration accepts only `<digits> <unit>` with unit ms, s, m, h or
// d (platform/config), so this reads that grammar and nothing more: workflow code imports no duration library.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function durationMs(duration: string): number {
  const match = /^(\d+)\s*(ms|s|m|h|d)$/.exec(duration.trim());
  if (!match) throw new TypeError(`not a duration: ${duration} (expected digits and one of ms, s, m, h, d)`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}
