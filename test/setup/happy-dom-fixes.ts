// Work-arounds for happy-dom bugs that would make tests of DOM sanitizing meaningless.

// --- happy-dom 21 vs DOMPurify 3.4
//
// Two happy-dom bugs make DOMPurify unsound there (a browser is fine), so without this patch the
// corpus above fails, and some vectors in isolation would pass by luck:
// 1. Node.prototype's nodeName getter returns '' for every node; DOMPurify ≥3.4.8 reads names
//    through it to resist clobbering, so every tag looks unknown and gets unwrapped.
//    https://github.com/capricorn86/happy-dom/issues/2182
// 2. NodeIterator lacks the DOM "pre-removing steps": once DOMPurify removes a node the walk ends
//    and everything after it stays unsanitized. https://github.com/capricorn86/happy-dom/issues/2310
// Each patch applies only while its bug is present. A third difference is not patched: happy-dom
// parses <svg>/<math> content in the HTML namespace, so namespace-confusion (mXSS) vectors prove
// less here than in a browser; they are still removed because svg and math are forbidden outright.
// It runs when dom.ts loads, before any suite renders Markdown (renderMarkdown checks its
// sanitizer once per process and falls back to plain text if it is unsound).
export function patchHappyDomForDomPurify(): void {
  const nodeName = Object.getOwnPropertyDescriptor(Node.prototype, 'nodeName')?.get;
  if (nodeName && nodeName.call(document.createElement('p')) === '') {
    Object.defineProperty(Node.prototype, 'nodeName', {
      configurable: true,
      get(this: Node): string {
        for (let proto = Object.getPrototypeOf(this); proto && proto !== Node.prototype; proto = Object.getPrototypeOf(proto)) {
          const own = Object.getOwnPropertyDescriptor(proto, 'nodeName')?.get;
          if (own) return own.call(this);
        }
        return nodeName.call(this);
      },
    });
  }
  if (!iteratorSurvivesRemoval()) {
    // The global Document is not the class of `document` itself in happy-dom, so patch its owner.
    let proto: object | null = document;
    while (proto && !Object.hasOwn(proto, 'createNodeIterator')) proto = Object.getPrototypeOf(proto);
    Object.defineProperty(proto!, 'createNodeIterator', { configurable: true, writable: true, value: createNodeIterator });
    if (!iteratorSurvivesRemoval()) throw new Error('NodeIterator patch did not take effect');
  }
}

function iteratorSurvivesRemoval(): boolean {
  const doc = document.createElement('template').content.ownerDocument;
  const root = doc.createElement('div');
  root.innerHTML = '<i></i><b></b>';
  const it = doc.createNodeIterator(root, NodeFilter.SHOW_ELEMENT);
  it.nextNode();
  (it.nextNode() as Element | null)?.remove();
  return it.nextNode()?.nodeName === 'B';
}

// Just enough of NodeIterator for DOMPurify (nextNode, whatToShow, no filter). Remembering the
// node before the current one stands in for the pre-removing steps: if the current node has been
// removed, the walk resumes after its old predecessor, which is where its followers now are.
// childNodes rather than firstChild/lastChild: happy-dom's <template> answers those from .content.
function createNodeIterator(this: Document, root: Node, whatToShow = 0xffffffff): NodeIterator {
  let current: Node | null = null;
  let before: Node | null = null;
  const following = (node: Node): Node | null => {
    if (node.childNodes.length) return node.childNodes[0]!;
    for (let n: Node | null = node; n && n !== root; n = n.parentNode) if (n.nextSibling) return n.nextSibling;
    return null;
  };
  const preceding = (node: Node): Node | null => {
    if (node === root) return null;
    let n = node.previousSibling;
    if (!n) return node.parentNode;
    while (n.childNodes.length) n = n.childNodes[n.childNodes.length - 1]!;
    return n;
  };
  const nextNode = (): Node | null => {
    let node = current === null ? root : following(root.contains(current) ? current : before!);
    while (node && !(whatToShow & (1 << (node.nodeType - 1)))) node = following(node);
    if (node) [current, before] = [node, preceding(node)];
    return node;
  };
  return { root, whatToShow, filter: null, nextNode } as unknown as NodeIterator;
}
