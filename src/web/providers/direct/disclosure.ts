/**
 * Accordion and FAQ headers written as buttons. A `<button>` is a control and no reading keeps
 * its text (Readability removes buttons, the Markdown converter skips them), but a button that
 * opens a panel with a question or a titled part carries the page's own text: its label is put
 * back where it stood, before any reading runs.
 */

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/**
 * A button that opens a panel of the page with an FAQ's question or an accordion's title: it
 * holds a heading, or it says what it controls (`aria-expanded`, `aria-controls`) and asks a
 * question. Other such buttons are controls: tabs, menus, sort orders, a product's options, and
 * the toggle of a folded table of contents or menu (its panel is navigation). A question whose
 * panel the page serves empty (the answer fetched on a click) has nothing to label.
 */
export function isDisclosure(button: Dom, root: Dom): boolean {
  if (!opensText(button, root)) return false;
  if (button.querySelector("h1, h2, h3, h4, h5, h6") !== null) return true;
  if (!button.hasAttribute("aria-expanded") && !button.hasAttribute("aria-controls")) return false;
  return /[?？]$/u.test((button.textContent ?? "").trim());
}

/** Replaces each disclosure button under `root` by a block holding its label. */
export function unwrapDisclosures(root: Dom): void {
  for (const button of Array.from(root.querySelectorAll("button")) as Dom[]) {
    if (!isDisclosure(button, root)) continue;
    const label = button.ownerDocument.createElement("div");
    while (button.firstChild) label.appendChild(button.firstChild);
    button.parentNode.insertBefore(label, button);
    button.remove();
  }
}

/**
 * Whether the panel the button names (`aria-controls`), when it is under `root`, holds text
 * and no navigation. A button naming no panel, or one not found, is judged by its label alone.
 */
function opensText(button: Dom, root: Dom): boolean {
  const id = button.getAttribute("aria-controls") ?? "";
  if (id === "" || /["\\\s]/.test(id)) return true;
  const panel = root.querySelector(`[id="${id}"]`);
  if (panel === null) return true;
  const navigation = "nav, [role='navigation']";
  if (panel.matches(navigation) || panel.querySelector(navigation) !== null) return false;
  return (panel.textContent ?? "").trim() !== "";
}
