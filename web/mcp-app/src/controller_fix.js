// Works around a leak in @a2ui/web_core 0.11.0: every re-render of a parent hands its
// children a new context, and each child then swaps its controller, disposing the old one
// without ending its subscriptions. The old controller's "a component was created" listener
// lives on, so while a surface streams in one component at a time the listeners multiply
// with every message, and a page renders ever slower until the tab runs out of memory (1 GB
// heap for the demo's 26 messages). Ending the subscriptions on dispose, as a disconnect
// does, keeps the heap flat (about 8 MB). Importing this module installs the fix (the same
// one web/src/v0_9.js makes for the page at GET /).
import { A2uiController } from '@a2ui/web_core/v0_9';

const dispose = A2uiController.prototype.dispose;
A2uiController.prototype.dispose = function disposeAndUnsubscribe() {
  this.hostDisconnected();
  dispose.call(this);
};
