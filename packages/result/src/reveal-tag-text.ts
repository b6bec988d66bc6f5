// Unicode TAG characters (U+E0020 to U+E007E) mirror printable ASCII, are invisible in most
// renderings, and several model tokenizers read them as the ASCII they mirror ("ASCII smuggling").
// A protected value or a credential spelled in them would pass a search for its ASCII text.

const TAG_HIGH_SURROGATE = '\uDB40';
const TAG_RUN = /(?:\uDB40[\uDC20-\uDC7E])+/g;

/**
 * `text` with each run of TAG characters that mirror printable ASCII replaced by that ASCII;
 * `text` itself, without a copy, when it holds none (one `includes` scan). With `separate`, each
 * run is written between spaces: a reader sees it as text of its own, so a token spelled in it
 * starts a word (credential forms are found at word starts). Other TAG characters (the cancel tag
 * of emoji flag sequences) stay, so a flag stays a flag.
 */
export function revealTagText(text: string, separate = false): string {
  if (!text.includes(TAG_HIGH_SURROGATE)) return text;
  return text.replace(TAG_RUN, (run) => {
    let ascii = '';
    for (let index = 1; index < run.length; index += 2) ascii += String.fromCharCode(run.charCodeAt(index) - 0xdc00);
    return separate ? ` ${ascii} ` : ascii;
  });
}
