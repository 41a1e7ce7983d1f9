/** Where commands write: one line at a time, so tests can capture exactly what a user would see. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}

export const stdio: Output = {
  out: (line) => {
    process.stdout.write(`${line}\n`);
  },
  err: (line) => {
    process.stderr.write(`${line}\n`);
  },
};
