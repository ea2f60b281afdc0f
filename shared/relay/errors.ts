// A relay message or invitation that a desk or the service refuses, with the words it says.
export class RelayRefusal extends Error {
  constructor(
    message: string,
    /** What went wrong, for the caller to count or show: the words are in the message. */
    readonly kind: RelayRefusalKind,
  ) {
    super(message);
    this.name = 'RelayRefusal';
  }
}

export type RelayRefusalKind =
  | 'malformed'
  | 'forged'
  | 'replayed'
  | 'reordered'
  | 'withheld'
  | 'not_member'
  | 'not_for_me'
  | 'wrong_room'
  | 'too_large';
