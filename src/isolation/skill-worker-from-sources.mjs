// The skill worker's entry when skillport runs from its TypeScript sources (`npm run dev`,
// `npm run -s cli`): Node 20 does not carry tsx's loader into worker threads, so the
// worker registers it before loading the TypeScript worker. A build runs tsc's
// dist/src/isolation/skill-worker.js instead (see src/bootstrap.ts).
import { register } from "tsx/esm/api";

register();

export default (await import("./skill-worker.ts")).default;
