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
