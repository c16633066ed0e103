import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import type { StoredExecution } from "../../../src/core/execution/record.js";
import type { ExecutionListQuery } from "../../../src/core/ports.js";
import { makeExecution, type StoreHandle, T0 } from "./fixtures.js";

const ids = (executions: StoredExecution[]): string[] => executions.map((execution) => execution.record.id);

/** `ExecutionStore`: saving (with group commit), reading and listing records. */
export function describeExecutionContract(handle: StoreHandle): void {
  describe("executions", () => {
    it("reads back a saved record exactly, once save resolved", async () => {
      const execution = makeExecution({ status: "completed" });
      await handle.store.executions.save(execution);
      expect(await handle.store.executions.get(execution.record.id)).toEqual(execution);
    });

    it("answers undefined for an unknown id", async () => {
      expect(await handle.store.executions.get("exe_unknown")).toBeUndefined();
    });

    it("replaces a record by a later save of the same id", async () => {
      const queued = makeExecution({ status: "queued" });
      const id = queued.record.id;
      await handle.store.executions.save(queued);
      await handle.store.executions.save(makeExecution({ id, status: "running" }));
      const failed = makeExecution({ id, status: "failed" });
      await handle.store.executions.save(failed);
      expect(await handle.store.executions.get(id)).toEqual(failed);
    });

    it("never changes a terminal record again", async () => {
      const completed = makeExecution({ status: "completed" });
      await handle.store.executions.save(completed);
      await handle.store.executions.save(makeExecution({ id: completed.record.id, status: "failed" }));
      expect(await handle.store.executions.get(completed.record.id)).toEqual(completed);
    });

    it("resolves 200 saves issued at once, and every record is readable after", async () => {
      const executions = Array.from({ length: 200 }, (_, i) =>
        makeExecution({ owner: "bulk", createdAt: isoTimestamp(T0 + i) }),
      );
      await Promise.all(executions.map((execution) => handle.store.executions.save(execution)));
      for (const execution of executions) {
        expect(await handle.store.executions.get(execution.record.id)).toEqual(execution);
      }
      const listed = await handle.store.executions.list({ owner: "bulk", limit: 500 });
      expect(listed).toHaveLength(200);
    });

    it("keeps the last state when saves of one id are issued together", async () => {
      const id = makeExecution().record.id;
      const states = [
        makeExecution({ id, status: "queued" }),
        makeExecution({ id, status: "running" }),
        makeExecution({ id, status: "completed" }),
      ];
      await Promise.all(states.map((state) => handle.store.executions.save(state)));
      expect(await handle.store.executions.get(id)).toEqual(states[2]);
    });

    it("saves a snapshot: changing the object after save does not change the record", async () => {
      const execution = makeExecution({ status: "running" });
      const saved = structuredClone(execution);
      const pending = handle.store.executions.save(execution);
      execution.record.status = "completed";
      await pending;
      expect(await handle.store.executions.get(execution.record.id)).toEqual(saved);
    });

    describe("list", () => {
      // Two records share a created_at, so the id must break the tie.
      const seed = async (): Promise<StoredExecution[]> => {
        const specs = [
          { id: "exe_a", createdAt: T0, status: "completed", skillId: "math.evaluate" },
          { id: "exe_b", createdAt: T0 + 1000, status: "failed", skillId: "message.send" },
          { id: "exe_c", createdAt: T0 + 1000, status: "completed", skillId: "message.send" },
          { id: "exe_d", createdAt: T0 + 2000, status: "running", skillId: "math.evaluate" },
          { id: "exe_e", createdAt: T0 + 3000, status: "completed", skillId: "math.evaluate" },
          { id: "exe_f", createdAt: T0 + 4000, status: "queued", skillId: "message.send" },
          { id: "exe_g", createdAt: T0 + 5000, status: "completed", skillId: "message.send" },
        ] as const;
        const executions = specs.map((spec) =>
          makeExecution({ ...spec, owner: "acme", createdAt: isoTimestamp(spec.createdAt) }),
        );
        await Promise.all(executions.map((execution) => handle.store.executions.save(execution)));
        await handle.store.executions.save(makeExecution({ id: "exe_other", owner: "globex" }));
        return executions;
      };
      const list = (query: Partial<ExecutionListQuery>) =>
        handle.store.executions.list({ owner: "acme", limit: 100, ...query });

      it("lists one owner's records newest first, ties broken by id descending", async () => {
        const executions = await seed();
        expect(ids(await list({}))).toEqual(["exe_g", "exe_f", "exe_e", "exe_d", "exe_c", "exe_b", "exe_a"]);
        expect(await list({ limit: 1 })).toEqual([executions[6]]);
      });

      it("never lists another owner's records", async () => {
        await seed();
        expect(ids(await list({ owner: "globex" }))).toEqual(["exe_other"]);
        expect(await list({ owner: "nobody" })).toEqual([]);
      });

      it("filters by status, by skill id, and by both", async () => {
        await seed();
        expect(ids(await list({ status: "completed" }))).toEqual(["exe_g", "exe_e", "exe_c", "exe_a"]);
        expect(ids(await list({ skillId: "message.send" }))).toEqual(["exe_g", "exe_f", "exe_c", "exe_b"]);
        expect(ids(await list({ status: "completed", skillId: "message.send" }))).toEqual(["exe_g", "exe_c"]);
      });

      it("continues strictly after the cursor, across a created_at tie", async () => {
        await seed();
        const after = { createdAt: isoTimestamp(T0 + 1000), id: "exe_c" };
        expect(ids(await list({ after }))).toEqual(["exe_b", "exe_a"]);
        expect(ids(await list({ after, status: "failed" }))).toEqual(["exe_b"]);
      });

      it("pages through every record once, in order, with the last item as cursor", async () => {
        await seed();
        const seen: string[] = [];
        let after: ExecutionListQuery["after"];
        for (let page = 0; page < 10; page++) {
          const items = await list({ limit: 3, after });
          seen.push(...ids(items));
          const last = items.at(-1);
          if (items.length < 3 || !last) break;
          after = { createdAt: last.record.created_at, id: last.record.id };
        }
        expect(seen).toEqual(["exe_g", "exe_f", "exe_e", "exe_d", "exe_c", "exe_b", "exe_a"]);
      });

      it("lists every owner's records when no owner is given, newest first", async () => {
        await seed();
        const all = await handle.store.executions.list({ limit: 100 });
        // exe_other (globex) shares exe_a's created_at: the id breaks the tie.
        expect(ids(all)).toEqual([
          "exe_g",
          "exe_f",
          "exe_e",
          "exe_d",
          "exe_c",
          "exe_b",
          "exe_other",
          "exe_a",
        ]);
        expect(ids(await handle.store.executions.list({ limit: 2, status: "completed" }))).toEqual([
          "exe_g",
          "exe_e",
        ]);
      });

      it("filters by the key that started a record, alone or with the owner", async () => {
        await seed();
        await handle.store.executions.save(
          makeExecution({ id: "exe_k", owner: "acme", keyId: "key_2", createdAt: isoTimestamp(T0 + 500) }),
        );
        expect(ids(await handle.store.executions.list({ keyId: "key_2", limit: 100 }))).toEqual(["exe_k"]);
        expect(ids(await list({ keyId: "key_2" }))).toEqual(["exe_k"]);
        expect(await list({ keyId: "key_2", owner: "globex" })).toEqual([]);
      });
    });
  });
}
