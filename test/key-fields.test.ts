import { describe, expect, it } from "vitest";
import { KEYS_ACTIONS, OPTIONS_OF_KEY_FIELD, parseKeysArgs } from "../src/cli/keys-args.js";
import { EDITABLE_KEY_FIELDS, FIXED_KEY_FIELDS, KEY_ATTRIBUTES } from "../src/core/keys/key-fields.js";
import { CreateKeyInput, EditKeyInput } from "../src/core/keys/key-service.js";
import {
  editKeyForm,
  editKeyValues,
  keyForm,
  readCreateKeyForm,
  readEditKeyForm,
} from "../src/http/dashboard/key-form.js";
import type { PageContext } from "../src/http/dashboard/layout.js";

/**
 * What a key has and what editing may change is stated once (core/keys/key-fields.ts).
 * These fail when a schema, the CLI or the dashboard drifts from it.
 */
describe("a key's fields, stated once", () => {
  it("every attribute is either editable or fixed at creation, and the core's inputs take exactly those", () => {
    expect([...EDITABLE_KEY_FIELDS, ...FIXED_KEY_FIELDS].sort()).toEqual([...KEY_ATTRIBUTES].sort());
    expect(Object.keys(CreateKeyInput.in.shape).sort()).toEqual([...KEY_ATTRIBUTES].sort());
    expect(Object.keys(EditKeyInput.shape).sort()).toEqual([...EDITABLE_KEY_FIELDS].sort());
  });

  it("keys edit takes the option of every editable field and refuses every fixed one as fixed", () => {
    const editable = EDITABLE_KEY_FIELDS.flatMap((field) => OPTIONS_OF_KEY_FIELD[field]);
    const parsed = parseKeysArgs(["edit", "key_x", ...editable.flatMap((option) => [`--${option}`, "1"])]);
    expect(parsed).toMatchObject({ action: "edit", id: "key_x" });
    for (const option of FIXED_KEY_FIELDS.flatMap((field) => OPTIONS_OF_KEY_FIELD[field])) {
      expect(() => parseKeysArgs(["edit", "key_x", `--${option}`, "1"])).toThrow(
        "cannot be edited: create a new key",
      );
    }
    const create = parseKeysArgs([
      "create",
      ...Object.values(OPTIONS_OF_KEY_FIELD)
        .flat()
        .flatMap((o) => [`--${o}`, "1"]),
    ]);
    expect(create.action).toBe("create");
  });

  it("the dashboard's edit form sets every editable field, and its create form every attribute", () => {
    const filled = { name: "n", scope: "read-only", plan: "enterprise", limit_minute: "1", limit_day: "2" };
    const edit = readEditKeyForm(filled).input as Record<string, unknown>;
    expect(
      Object.keys(edit)
        .filter((field) => edit[field] !== undefined)
        .sort(),
    ).toEqual([...EDITABLE_KEY_FIELDS].sort());
    const created = readCreateKeyForm({
      ...filled,
      environment: "staging",
      owner: "o",
      expires_on: "2027-01-01",
    }).input as Record<string, unknown>;
    expect(
      Object.keys(created)
        .filter((field) => created[field] !== undefined)
        .sort(),
    ).toEqual([...KEY_ATTRIBUTES].sort());
  });

  it("the dashboard's forms show exactly the fields their readers read: every attribute's, or every editable one's", () => {
    const ctx = { csrf: "token" } as PageContext;
    const namesIn = (form: unknown) =>
      [...new Set([...String(form).matchAll(/ name="([^"]+)"/g)].map((m) => m[1]))]
        .filter((name) => name !== "_csrf")
        .sort();
    expect(namesIn(keyForm(ctx, {}, new Map()))).toEqual(Object.keys(readCreateKeyForm({}).values).sort());
    const key = { id: "key_x", name: "n", plan: "free", limits: { perMinute: 1, perDay: 2 } } as Parameters<
      typeof editKeyValues
    >[0];
    expect(namesIn(editKeyForm(ctx, key, editKeyValues(key), new Map()))).toEqual(
      Object.keys(readEditKeyForm({}).values).sort(),
    );
  });

  it("each keys action, refusing another's option, names every option it takes (edit: every one it changes)", () => {
    for (const action of Object.values(KEYS_ACTIONS)) {
      // `--data-dir` and `--help` are every action's; revoke names the first.
      const said = (action.takes.match(/--[a-z-]+/g) ?? []).filter((option) => option !== "--data-dir");
      expect(said.sort()).toEqual(
        Object.keys(action.spec.options)
          .filter((option) => !(action.takes.startsWith("it changes") && option === "json"))
          .map((option) => `--${option}`)
          .sort(),
      );
    }
  });
});
