/** A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal. */
export class Progress {
  private current = 0;
  private readonly enabled: boolean;

  constructor(
    private readonly total: number,
    wanted: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.enabled = wanted && Boolean(stream.isTTY);
  }

  advance(by: number): void {
    this.current = Math.min(this.total, this.current + by);
    if (!this.enabled) return;
    const width = 30;
    const filled = Math.round((this.current / this.total) * width);
    this.stream.write(
      `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.current}/${this.total} files`,
    );
  }

  done(): void {
    if (this.enabled) this.stream.write('\n');
  }
}
