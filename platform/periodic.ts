// A background task run every `everyMs` in this process, never overlapping itself, its errors reported and the
// next run trying again. Returns the stop function. The timer does not keep the process alive.
export function runPeriodically(
  everyMs: number,
  task: () => Promise<void>,
  onError: (err: unknown) => void,
): () => void {
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      await task();
    } catch (err) {
      onError(err);
    } finally {
      busy = false;
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
