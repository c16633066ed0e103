import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const deploy = readFileSync(new URL("../docs/deploy.md", import.meta.url), "utf8");

const MIB = 1024 * 1024;

/**
 * Measured in audit 22 (discovery #4) with the built-in skills, main process and skill host
 * together (one container, one cgroup): a hybrid replica 390–480 MB a second after start,
 * about 503 MiB of anonymous memory at its peak under a light mixed load.
 */
const HYBRID_AFTER_START_BYTES = 480e6;
const HYBRID_PEAK_BYTES = 503 * MIB;
/** The skill host's worker threads may each grow to SKILLPORT_WORKER_MEMORY_MB (256); at least 2 run. */
const WORKER_HEAPS_BYTES = 2 * 256 * MIB;

/** A Kubernetes memory quantity (`768Mi`, `1.5Gi`, `512M`) in bytes. */
function bytes(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(quantity);
  if (!match?.[1]) throw new Error(`not a memory quantity: ${quantity}`);
  const units: Record<string, number> = { Ki: 1024, Mi: MIB, Gi: 1024 * MIB, K: 1e3, M: 1e6, G: 1e9 };
  return Number(match[1]) * (units[match[2] ?? ""] ?? 1);
}

describe("docs/deploy.md's Kubernetes manifest", () => {
  const manifest = /```yaml\n(apiVersion: apps\/v1\nkind: Deployment[\s\S]*?)```/.exec(deploy)?.[1] ?? "";

  it("sizes memory for the discovery mode it runs: hybrid (the default) needs its model's memory", () => {
    expect(manifest).not.toBe("");
    const request = /requests: \{[^}]*memory: ([\w.]+)/.exec(manifest)?.[1];
    const limit = /limits: \{[^}]*memory: ([\w.]+)/.exec(manifest)?.[1];
    if (!request || !limit) throw new Error("the manifest sets no memory request or limit");
    const lexical = /SKILLPORT_DISCOVERY_MODE, value: "?lexical/.test(manifest);
    // Lexical mode took about half as much memory under the same load.
    const scale = lexical ? 0.5 : 1;
    expect(bytes(request)).toBeGreaterThanOrEqual(scale * HYBRID_AFTER_START_BYTES);
    expect(bytes(limit)).toBeGreaterThanOrEqual(scale * HYBRID_PEAK_BYTES + WORKER_HEAPS_BYTES);
  });

  it("has its sizing section say what the model costs and that lexical mode needs about half", () => {
    const sizing = deploy.slice(deploy.indexOf("\n## Sizing\n"));
    expect(sizing).toMatch(/hybrid/);
    expect(sizing).toMatch(/SKILLPORT_DISCOVERY_MODE=lexical` needs about half/);
  });
});
