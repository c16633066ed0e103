import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../../src/core/clock.js";
import { pageOfExecutions } from "../../../src/core/execution/execution-page.js";
import type { StoredExecution } from "../../../src/core/execution/record.js";
import type { ExecutionListQuery } from "../../../src/core/ports.js";
import { makeExecution, type StoreHandle, T0 } from "./fixtures.js";

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

    it("never changes a terminal record again, and says so: that save resolves false", async () => {
      const completed = makeExecution({ status: "completed" });
      expect(await handle.store.executions.save(completed)).toBe(true);
      expect(
        await handle.store.executions.save(makeExecution({ id: completed.record.id, status: "failed" })),
      ).toBe(false);
      expect(await handle.store.executions.get(completed.record.id)).toEqual(completed);
      // Issued together, the refused save is told apart from the one stored beside it.
      const other = makeExecution({ status: "completed" });
      const [refused, stored] = await Promise.all([
        handle.store.executions.save(makeExecution({ id: completed.record.id, status: "cancelled" })),
        handle.store.executions.save(other),
      ]);
      expect([refused, stored]).toEqual([false, true]);
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
      // Records are listed by id, newest first: the core makes an id from the instant of the
      // record's created_at (newRecord), as makeExecution does. b and c share a created_at,
      // so their ids keep the order they were made in.
      const names = new Map<string, string>();
      const named = (executions: StoredExecution[]) =>
        executions.map((execution) => names.get(execution.record.id) ?? execution.record.id);
      const idOf = (name: string): string => {
        for (const [id, n] of names) if (n === name) return id;
        throw new Error(`no record named ${name}`);
      };
      const seed = async (): Promise<StoredExecution[]> => {
        const specs = [
          { name: "a", createdAt: T0, status: "completed", skillId: "math.evaluate" },
          { name: "b", createdAt: T0 + 1000, status: "failed", skillId: "message.send" },
          { name: "c", createdAt: T0 + 1000, status: "completed", skillId: "message.send" },
          { name: "d", createdAt: T0 + 2000, status: "running", skillId: "math.evaluate" },
          { name: "e", createdAt: T0 + 3000, status: "completed", skillId: "math.evaluate" },
          { name: "f", createdAt: T0 + 4000, status: "queued", skillId: "message.send" },
          { name: "g", createdAt: T0 + 5000, status: "completed", skillId: "message.send" },
        ] as const;
        names.clear();
        const executions = specs.map(({ name, ...spec }) => {
          const execution = makeExecution({
            ...spec,
            owner: "acme",
            createdAt: isoTimestamp(spec.createdAt),
          });
          names.set(execution.record.id, name);
          return execution;
        });
        // Saved in another order than made: the store orders them, not the insertion.
        await Promise.all(
          [...executions].reverse().map((execution) => handle.store.executions.save(execution)),
        );
        const other = makeExecution({ owner: "globex", createdAt: isoTimestamp(T0 + 500) });
        names.set(other.record.id, "other");
        await handle.store.executions.save(other);
        return executions;
      };
      const list = (query: Partial<ExecutionListQuery>) =>
        handle.store.executions.list({ owner: "acme", limit: 100, ...query });

      it("lists one owner's records newest first, ties in created_at in the order they were made", async () => {
        const executions = await seed();
        expect(named(await list({}))).toEqual(["g", "f", "e", "d", "c", "b", "a"]);
        expect(await list({ limit: 1 })).toEqual([executions[6]]);
      });

      it("never lists another owner's records", async () => {
        await seed();
        expect(named(await list({ owner: "globex" }))).toEqual(["other"]);
        expect(await list({ owner: "nobody" })).toEqual([]);
      });

      it("filters by status, by skill id, and by both", async () => {
        await seed();
        expect(named(await list({ status: "completed" }))).toEqual(["g", "e", "c", "a"]);
        expect(named(await list({ skillId: "message.send" }))).toEqual(["g", "f", "c", "b"]);
        expect(named(await list({ status: "completed", skillId: "message.send" }))).toEqual(["g", "c"]);
      });

      it("continues strictly after the cursor's record, across a created_at tie", async () => {
        await seed();
        const after = idOf("c");
        expect(named(await list({ after }))).toEqual(["b", "a"]);
        expect(named(await list({ after, status: "failed" }))).toEqual(["b"]);
      });

      it("pages through every record once, in order, with the last item as cursor", async () => {
        await seed();
        const seen: string[] = [];
        let after: string | undefined;
        for (let page = 0; page < 10; page++) {
          const items = await list({ limit: 3, after });
          seen.push(...named(items));
          const last = items.at(-1);
          if (items.length < 3 || !last) break;
          after = last.record.id;
        }
        expect(seen).toEqual(["g", "f", "e", "d", "c", "b", "a"]);
      });

      it("lists every owner's records when no owner is given, newest first", async () => {
        await seed();
        const all = await handle.store.executions.list({ limit: 100 });
        expect(named(all)).toEqual(["g", "f", "e", "d", "c", "b", "other", "a"]);
        expect(named(await handle.store.executions.list({ limit: 2, status: "completed" }))).toEqual([
          "g",
          "e",
        ]);
        const after = idOf("b");
        expect(named(await handle.store.executions.list({ limit: 100, after }))).toEqual(["other", "a"]);
      });

      it("filters by the key that started a record, alone or with the owner", async () => {
        await seed();
        await handle.store.executions.save(
          makeExecution({ id: "exe_k", owner: "acme", keyId: "key_2", createdAt: isoTimestamp(T0 + 500) }),
        );
        expect(named(await handle.store.executions.list({ keyId: "key_2", limit: 100 }))).toEqual(["exe_k"]);
        expect(named(await list({ keyId: "key_2" }))).toEqual(["exe_k"]);
        expect(await list({ keyId: "key_2", owner: "globex" })).toEqual([]);
      });
    });

    describe("pages bounded in bytes", () => {
      // Results of these many bytes of JSON: {"x":""} is 8 of them.
      const seed = async (owner: string, lengths: number[]): Promise<string[]> => {
        const executions = lengths.map((length, i) =>
          makeExecution({
            owner,
            status: "completed",
            createdAt: isoTimestamp(T0 + i * 1000),
            result: { x: "x".repeat(length - 8) },
          }),
        );
        await Promise.all(executions.map((execution) => handle.store.executions.save(execution)));
        return executions.map((execution) => execution.record.id).reverse();
      };

      it("reads each result's size in bytes of its JSON, 0 without a result", async () => {
        const multibyte = makeExecution({ owner: "sized", status: "completed", result: { name: "é€" } });
        const none = makeExecution({ owner: "sized", status: "running", createdAt: isoTimestamp(T0 + 1000) });
        await handle.store.executions.save(multibyte);
        await handle.store.executions.save(none);
        expect(await handle.store.executions.listResultSizes({ owner: "sized", limit: 10 })).toEqual([
          { id: none.record.id, resultBytes: 0 },
          { id: multibyte.record.id, resultBytes: Buffer.byteLength(JSON.stringify({ name: "é€" })) },
        ]);
      });

      it("stops a page at the byte budget; following next_cursor lists every record once, in order", async () => {
        // Newest first, the sizes are 8, 30, 30, 30, 200, 10, 50 with a budget of 100.
        const ids = await seed("paged", [50, 10, 200, 30, 30, 30, 8]);
        const pages: string[][] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 10; page++) {
          const { data, next_cursor } = await pageOfExecutions(
            handle.store.executions,
            { owner: "paged" },
            { limit: 4, cursor },
            100,
          );
          pages.push(data.map((execution) => execution.record.id));
          if (!next_cursor) break;
          cursor = next_cursor;
        }
        // 8+30+30+30 = 98 fits; 200 alone is over the budget but still listed; then 10+50.
        expect(pages).toEqual([ids.slice(0, 4), ids.slice(4, 5), ids.slice(5, 7)]);
      });

      it("bounds a page by limit alone while its results are small", async () => {
        const ids = await seed("small", [10, 10, 10]);
        const first = await pageOfExecutions(handle.store.executions, { owner: "small" }, { limit: 2 }, 100);
        expect(first.data.map((execution) => execution.record.id)).toEqual(ids.slice(0, 2));
        const rest = await pageOfExecutions(
          handle.store.executions,
          { owner: "small" },
          { limit: 2, cursor: first.next_cursor ?? undefined },
          100,
        );
        expect(rest.data.map((execution) => execution.record.id)).toEqual(ids.slice(2));
        expect(rest.next_cursor).toBeNull();
      });
    });
  });
}
