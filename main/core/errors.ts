/** A refusal the treasurer reads: the message says what was refused and why. */
export class CoordinatorError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CoordinatorError';
  }
}
