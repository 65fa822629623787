// Element lookup and creation for the pages: no framework, and a missing element fails loudly where it is named.

/** The page's element with this id; its type is the caller's to say (an input, a canvas…). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

/** A new element with some of its properties set, e.g. make('span', { className: 'badge', textContent: 'scan' }). */
export function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), props);
}
