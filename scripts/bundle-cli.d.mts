// Types of scripts/bundle-cli.mjs, for its test (test/contract/cli-bundle-swap.test.ts).
export function bundleCli(outdir?: string): Promise<void>;
export function replaceFiles(staging: string, outdir: string): void;
