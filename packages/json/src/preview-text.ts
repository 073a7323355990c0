/** Characters of a bad value quoted in an error message: enough to recognise it, never 1 MiB. */
const PREVIEW_LENGTH = 40;

/**
 * `text` quoted for an error message, cut after `PREVIEW_LENGTH` characters. `JSON.stringify`
 * is fine here: this is a message, and it escapes lone surrogates so the message stays valid.
 */
export function previewText(text: string): string {
  const cut = text.length > PREVIEW_LENGTH ? text.slice(0, PREVIEW_LENGTH) + '…' : text;
  return JSON.stringify(cut);
}
