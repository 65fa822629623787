// An automatic approval's window (the decision policy's `overturn_window`): its hint carries the time the
// registration runs on, and an operator's rejection before then overturns it. Read from the signals, so a history
// replays the same; an older history has no such hint, and no window.
import { condition, setCurrentDetails } from '@temporalio/workflow';

export class OverturnWindow {
  /** When the held approval takes effect (epoch ms); 0: none held. */
  private until = 0;

  /** An approval hint: an automatic one is held until `holdUntil` (ISO). */
  approved(holdUntil: string | undefined): void {
    if (holdUntil) this.until = Date.parse(holdUntil);
  }

  /** A rejection hint: whether it overturns a held approval (which then no longer counts). */
  overturns(): boolean {
    const held = this.until > 0;
    this.until = 0;
    return held;
  }

  get open(): boolean {
    return this.until > Date.now();
  }

  /** Waits out the window while `holds` (the approval stands, no cancellation); the approval then takes effect. */
  async wait(details: string, holds: () => boolean): Promise<void> {
    const at = new Date(this.until).toISOString();
    setCurrentDetails(`${details}: approved automatically; runs on at ${at} unless an operator overturns it`);
    await condition(() => !holds(), this.until - Date.now());
    if (holds()) this.until = 0;
  }
}
