/** A wallet name as part of a file name: letters, digits, _ and - only, at most 40 characters. */
export const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'wallet';
