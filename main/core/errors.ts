/** What a refusal concerns, so the screen can show it beside the right field or link to the right thing. */
export interface RefusalSubject {
  /** The input field at fault, by its bridge name ('to', 'amount', 'miners_fee', …). */
  field?: string;
  /** The wallet the refusal names (e.g. the existing wallet a new one would duplicate). */
  walletId?: string;
}

/** A refusal the treasurer reads: the message says what was refused and why. */
export class CoordinatorError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly subject: RefusalSubject = {},
  ) {
    super(message);
    this.name = 'CoordinatorError';
  }
}
