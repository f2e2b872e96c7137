/**
 * What a browser does not show of a page as sent: a `<dialog>` without `open` stays hidden until
 * a script opens it (a contact or sign-up form behind a "Talk to an expert" button, a newsletter
 * prompt, a video player). Its text is not the page's: readers that score blocks by their text
 * kept such forms as sections of a landing page.
 */

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** Removes the page's closed dialogs, before anything reads or types the page. */
export function dropClosedDialogs(document: Dom): void {
  const dialogs = Array.from(document.getElementsByTagName("dialog")) as Dom[];
  for (const dialog of dialogs) if (!dialog.hasAttribute("open")) dialog.remove();
}
