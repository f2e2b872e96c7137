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
/** The root's elements by id, and what each panel was found to hold (asked once per panel). */
interface Panels {
  readonly found: ReadonlyMap<string, Dom>;
  readonly opens: Map<string, boolean>;
}

export function isDisclosure(button: Dom, panels: Panels): boolean {
  if (!opensText(button, panels)) return false;
  if (button.querySelector("h1, h2, h3, h4, h5, h6") !== null) return true;
  if (!button.hasAttribute("aria-expanded") && !button.hasAttribute("aria-controls")) return false;
  return /[?？]$/u.test((button.textContent ?? "").trim());
}

/** Replaces each disclosure button under `root` by a block holding its label. */
export function unwrapDisclosures(root: Dom): void {
  const buttons = Array.from(root.querySelectorAll("button")) as Dom[];
  if (buttons.length === 0) return;
  // The panels by id, found in one walk: a page of many buttons must not walk the page per button.
  const found = new Map<string, Dom>();
  for (const element of Array.from(root.querySelectorAll("[id]")) as Dom[]) {
    const id = element.getAttribute("id");
    if (!found.has(id)) found.set(id, element);
  }
  const panels: Panels = { found, opens: new Map() };
  for (const button of buttons) {
    if (!isDisclosure(button, panels)) continue;
    const label = button.ownerDocument.createElement("div");
    while (button.firstChild) label.appendChild(button.firstChild);
    button.parentNode.insertBefore(label, button);
    button.remove();
  }
}

/**
 * Whether the panel the button names (`aria-controls`), when it is under the root, holds text
 * and no navigation. A button naming no panel, or one not found, is judged by its label alone.
 */
function opensText(button: Dom, panels: Panels): boolean {
  const id = button.getAttribute("aria-controls") ?? "";
  if (id === "") return true;
  const known = panels.opens.get(id);
  if (known !== undefined) return known;
  const panel = panels.found.get(id);
  if (panel === undefined) return true;
  const navigation = "nav, [role='navigation']";
  const opens =
    !(panel.matches(navigation) || panel.querySelector(navigation) !== null) &&
    (panel.textContent ?? "").trim() !== "";
  panels.opens.set(id, opens);
  return opens;
}
