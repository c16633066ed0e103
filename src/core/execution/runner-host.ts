import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/** What tells processes apart beyond their pids: see `runnerHost`. */
export interface HostParts {
  hostname: string;
  /** The kernel's boot id: machines (or VMs) that share a hostname still differ in it. */
  bootId?: string;
  /** The PID namespace, as `readlink /proc/self/ns/pid` says (`pid:[4026531836]`). */
  pidNamespace?: string;
}

/**
 * What a runner records as its `host` (RunnerInfo): the space in which its pid names a
 * process. Two runners with the same value can judge each other by their pids (a process
 * that no longer exists is dead at once); any other is judged by its heartbeats only.
 *
 * The hostname alone is not enough: containers given one `hostname:`, host networking or
 * `hostNetwork` pods share a hostname but each has its own PID namespace, where identical
 * containers even get the same pid (1), so `kill(pid, 0)` and "my own pid" said nothing
 * true about a live peer, and its running executions were ended `execution_interrupted`
 * while it ran them. The PID namespace's inode tells namespaces
 * apart on one kernel; the initial namespace has the same inode on every machine, hence
 * the boot id too. Where neither can be read (no /proc: macOS), the hostname alone.
 *
 * The hostname comes first, so that the runners table stays readable.
 */
export function runnerHost({ hostname, bootId, pidNamespace }: HostParts): string {
  const where = [bootId && `boot ${bootId}`, pidNamespace].filter(Boolean).join(", ");
  return where ? `${hostname} (${where})` : hostname;
}

let ownHost: string | undefined;

/**
 * This process's `runnerHost`, read once: the PID namespace and boot id of a process never
 * change, and the heartbeat asks for it every beat.
 */
export function processHost(): string {
  ownHost ??= runnerHost({
    hostname: hostname(),
    bootId: readOrUndefined(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()),
    pidNamespace: readOrUndefined(() => readlinkSync("/proc/self/ns/pid")),
  });
  return ownHost;
}

function readOrUndefined(read: () => string): string | undefined {
  try {
    return read() || undefined;
  } catch {
    return undefined;
  }
}
