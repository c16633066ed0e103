import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ServiceError } from "../../src/core/errors.js";
import {
  editKeyForm,
  keyForm,
  readCreateKeyForm,
  readEditKeyForm,
} from "../../src/http/dashboard/key-form.js";
import type { PageContext } from "../../src/http/dashboard/layout.js";
import { type Core, makeCore } from "../core/make-core.js";

const ctx = { csrf: "token", version: "test", assets: {} } as unknown as PageContext;

/** The core's refusal of `run`. */
async function refusalOf(run: () => Promise<unknown>): Promise<ServiceError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error("not refused");
}

let core: Core;
beforeEach(async () => {
  core = await makeCore([]);
});
afterEach(() => core.cleanup());

// A key error the form could not place was shown under Name (which also took the focus):
// the core's `(root)` refusal, a field the form does not show, a path with no field yet.
describe("a refused key form", () => {
  it("shows an error that names no field of the form above the fields, not under Name", async () => {
    const { key } = await core.createKey({ name: "agent" });
    const err = await refusalOf(() => core.skillport.keys.edit(key.id, {}));
    expect(err.details?.[0]?.path).toBe("(root)");
    const form = readEditKeyForm({ name: "agent", plan: "free" });
    const page = String(editKeyForm(ctx, key, form.values, form.errorsOf(err)));
    expect(page).toContain("The key was not changed: nothing to change: give a name, a plan or limits");
    expect(page).not.toContain("aria-invalid");
    expect(page).not.toContain("field-error");
    expect(page).not.toContain("autofocus");
  });

  it("shows a field's error under it, and one for a field the form lacks at the top", async () => {
    const err = new ServiceError("invalid_request", {
      details: [
        { path: "limits.perDay", message: "must be at most 10" },
        { path: "owner", message: "owners are fixed" },
      ],
    });
    const edit = readEditKeyForm({ name: "agent", plan: "enterprise" });
    const errors = edit.errorsOf(err);
    expect([...errors]).toEqual([
      ["limit_day", "must be at most 10"],
      ["(form)", "owners are fixed"],
    ]);
    const { key } = await core.createKey({ name: "agent" });
    const page = String(editKeyForm(ctx, key, edit.values, errors));
    expect(page).toContain("The key was not changed: owners are fixed; check the highlighted fields.");
    expect(page).toMatch(/id="limit_day"[^>]*aria-invalid="true"[^>]*autofocus/);
    expect(page).toContain('<p class="field-error" id="limit_day-error">must be at most 10</p>');
    expect(page).not.toMatch(/id="name"[^>]*aria-invalid/);

    // The create form has an owner field: the same error goes under it.
    const create = readCreateKeyForm({ name: "agent", scope: "read-only" });
    const created = String(keyForm(ctx, create.values, create.errorsOf(err)));
    expect(created).toContain('<p class="field-error" id="owner-error">owners are fixed</p>');
    expect(created).toContain("The key was not created: check the highlighted fields.");
  });
});
