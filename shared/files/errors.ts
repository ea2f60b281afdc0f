/**
 * The one error of shared/files: a file another wallet wrote (or a person typed) is not what it
 * claims to be. The message says which part and why, in words a treasurer can act on.
 */
export class FileFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileFormatError';
  }
}

/**
 * An unsigned payment, or a signing request, that does not check out offline. `code` is the
 * refusal the desk reports ('malformed', 'tampered', or the caller's own); the message says what
 * differs. The desk turns it into its CoordinatorError with the same code and message.
 */
export class PaymentCheckError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PaymentCheckError';
  }
}
