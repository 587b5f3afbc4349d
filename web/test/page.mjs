// What the page drivers share: a failed step, the instrumentation they add to the page
// before its scripts run (text found through the renderer's shadow roots, the moment Send was
// pressed), and waiting for a condition to hold on a frame.

/** How long one step may take. */
export const TIMEOUT = 30_000;

/** A step that did not hold: its message says what the page showed instead. */
export class Failure extends Error {}
export function check(condition, why) {
  if (!condition) throw new Failure(why);
}

// Runs in the page before its own scripts: finds text through shadow roots (the renderer
// draws every component in one) and notes when the user pressed Send.
export function instrument() {
  window.__sentAt = null;
  document.addEventListener('submit', () => { window.__sentAt = performance.now(); }, true);
  const visible = (element) => {
    const box = element?.getBoundingClientRect();
    return !!box && box.width > 0 && box.height > 0;
  };
  // The elements (inside surfaces) whose own text is exactly `text`.
  window.__find = (text) => {
    const found = [];
    const walk = (root) => {
      for (const node of root.querySelectorAll('*')) {
        if (node.shadowRoot) walk(node.shadowRoot);
        const own = [...node.childNodes]
          .filter((child) => child.nodeType === Node.TEXT_NODE)
          .map((child) => child.textContent)
          .join('')
          .trim();
        if (own === text && visible(node)) found.push(node);
      }
    };
    for (const surface of document.querySelectorAll('a2ui-surface')) {
      if (surface.shadowRoot) walk(surface.shadowRoot);
      walk(surface);
    }
    return found;
  };
  // The input a surface labels `label`. (The v0.9 renderer does not tie its TextField's
  // label to the input, so the accessible name cannot find it.)
  window.__field = (label) => {
    const [element] = window.__find(label).filter((node) => node.localName === 'label');
    return element?.parentElement?.querySelector('input, textarea') ?? null;
  };
  // Any visible component drawn inside a surface.
  window.__anyComponent = () => {
    for (const surface of document.querySelectorAll('a2ui-surface')) {
      const root = surface.shadowRoot ?? surface;
      for (const node of root.querySelectorAll('*')) {
        if (node.localName.startsWith('a2ui-') && visible(node)) return true;
      }
    }
    return false;
  };
}

/** Resolves with `performance.now()` and the page's state on the first frame `test` holds. */
export function when(page, test, ...args) {
  return page
    .waitForFunction(
      (source, ...rest) => {
        // eslint-disable-next-line no-new-func
        const holds = new Function(`return (${source})`)()(...rest);
        return holds && { at: performance.now(), state: document.body.dataset.state };
      },
      { polling: 'raf', timeout: TIMEOUT },
      test.toString(),
      ...args,
    )
    .then((handle) => handle.jsonValue());
}
