// Preloaded (node --require) into a process and its worker threads: every
// WebAssembly.instantiate takes half a second longer, as the backend's compile does on a
// busy machine.
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = (...args) =>
  new Promise((resolve) => setTimeout(resolve, 500)).then(() => instantiate.apply(WebAssembly, args));
