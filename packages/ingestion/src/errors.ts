/** Why a file could not be ingested: a type the job reports as `error_type`, and a message for people. */
export class ContentError extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(message);
    this.name = errorType;
  }
}
