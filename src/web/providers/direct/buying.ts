/**
 * A product page's buying machinery: the variant pickers and colour swatches, the quantity
 * stepper, the add-to-cart, wishlist and share controls, the store and pickup pickers, the
 * payment-plan badges. A shop names each of these blocks in a class or an id; their words
 * ("Swatch", "Qty", "Add to wishlist", "Pick up in store", "or 4 payments of") are controls, not
 * what the page says of the product, and a reader of the product has no use for them.
 */
import { MAX_CONTROL_CHARS, nameWords, textLength } from "./document.js";

// biome-ignore lint/suspicious/noExplicitAny: linkedom's DOM types are the DOM lib's, not loaded here.
type Dom = any;

/** A class or id word that names a buying control. */
const CONTROL =
  /^(?:quantity|qty|wishlist|wishlists|favorites?|favourites?|share|sharing|socialshare|pickup|instore|afterpay|klarna|affirm|sezzle|installments?|paypal|atc|addtocart|buybutton|stepper|picker|selector|sizeguide|sizechart)$/i;
/** The same named in words across a class: `add-to-cart`, `product__add_to_bag`, `store-availability`. */
const CONTROL_PHRASE =
  /(?:^|[-_\s])(?:add[-_]?to[-_]?(?:cart|bag|basket|wishlist|wish[-_]?list|favou?rites)|buy[-_]?now|store[-_]?(?:availability|picker|selector|locator)|find[-_]?in[-_]?store|pick[-_]?up|payment[-_]?(?:icons?|methods?|badges?|plans?|options?)|size[-_]?(?:guide|chart)|social[-_]?(?:share|sharing|links|icons?))(?:$|[-_\s])/i;
/**
 * A word that makes the block the product's content whatever else its name says: a
 * `variant-description` or a `product-details__variants` block describes the product.
 */
const CONTENT = /^(?:description|details|specifications?|specs|features|overview|content|info|information)$/i;

/** Whether an element's class or id names a buying control and nothing that describes. */
export function buyingControl(element: Dom): boolean {
  const names = `${element.getAttribute?.("class") ?? ""} ${element.getAttribute?.("id") ?? ""}`;
  if (names.trim() === "" || names.length > 300) return false;
  const parts = nameWords(names);
  if (parts.some((word) => CONTENT.test(word))) return false;
  return parts.some((word) => CONTROL.test(word)) || CONTROL_PHRASE.test(names);
}

/**
 * Removes from a product's reading the blocks its shop names as buying controls, outermost
 * first; a block that holds more than a control's few words ("Qty 1 2 3", "Add to wishlist"), or a
 * heading, stays: then the name is a wrapper's, whose prices, editions and stock line are the page's.
 */
export function dropBuyingControls(root: Dom): void {
  const doomed: Dom[] = [];
  const visit = (element: Dom) => {
    for (let child = element.firstElementChild; child != null; child = child.nextElementSibling) {
      if (
        !/^h[1-6]$/.test(child.localName) &&
        buyingControl(child) &&
        textLength(child) <= MAX_CONTROL_CHARS &&
        child.querySelector("h1, h2, h3") === null
      )
        doomed.push(child);
      else visit(child);
    }
  };
  visit(root);
  for (const element of doomed) element.remove();
}
