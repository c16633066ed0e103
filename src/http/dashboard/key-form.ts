import type { ServiceError } from "../../core/errors.js";
import { ENVIRONMENTS, PLANS, SCOPES } from "../../core/keys/api-key.js";
import {
  EDITABLE_KEY_FIELDS,
  type EditableKeyField,
  KEY_ATTRIBUTES,
  type KeyAttribute,
} from "../../core/keys/key-fields.js";
import type { CreateKeyInput, EditKeyInput, KeyView } from "../../core/keys/key-service.js";
import { PLAN_LIMITS } from "../../core/limits/plans.js";
import { integer } from "./format.js";
import { html, type SafeHtml } from "./html.js";
import { csrfField, type PageContext } from "./layout.js";

/**
 * The form fields each of a key's attributes is typed in, by the core's error path each
 * takes (an attribute's own path goes to its first field). The forms' fields are built
 * from this and the core's lists (`KEY_ATTRIBUTES`, `EDITABLE_KEY_FIELDS`): an attribute
 * added to the core fails to compile here until the form has a field for it.
 */
const FORM_FIELDS_OF = {
  name: { name: "name" },
  scope: { scope: "scope" },
  plan: { plan: "plan" },
  limits: { "limits.perMinute": "limit_minute", "limits.perDay": "limit_day" },
  environment: { environment: "environment" },
  owner: { owner: "owner" },
  expiresAt: { expiresAt: "expires_on" },
} as const satisfies Record<KeyAttribute, Record<string, string>>;

/** The form fields of some attributes (of each in a union). */
type FormFieldOf<A extends KeyAttribute> = A extends KeyAttribute
  ? (typeof FORM_FIELDS_OF)[A][keyof (typeof FORM_FIELDS_OF)[A]]
  : never;

/** The create form's fields, as typed (kept to show the form again after an error). */
export type CreateKeyForm = Record<FormFieldOf<KeyAttribute>, string>;

/** The edit form's fields, as typed: what editing a key may change. */
export type EditKeyForm = Record<FormFieldOf<EditableKeyField>, string>;

function formFieldsOf<A extends KeyAttribute>(attributes: readonly A[]): FormFieldOf<A>[] {
  return attributes.flatMap((attribute) => Object.values(FORM_FIELDS_OF[attribute]) as FormFieldOf<A>[]);
}

/** Where each of the core's error paths shows on the form. */
const FIELD_OF_PATH: Record<string, keyof CreateKeyForm> = Object.fromEntries(
  KEY_ATTRIBUTES.flatMap((attribute) => {
    const byPath: Record<string, keyof CreateKeyForm> = FORM_FIELDS_OF[attribute];
    const first = Object.values(byPath)[0];
    return [...(first ? [[attribute, first] as const] : []), ...Object.entries(byPath)];
  }),
);

/** What reading a posted key form gives: the fields as typed, the core's input, and its errors by field. */
interface ReadKeyForm<Values, Input> {
  values: Values;
  input: Input;
  errorsOf(err: ServiceError): Map<string, string>;
}

const CREATE_FIELDS = formFieldsOf(KEY_ATTRIBUTES);
const EDIT_FIELDS = formFieldsOf(EDITABLE_KEY_FIELDS);

/** The posted fields of a form, trimmed; a missing or repeated field is "". */
function readFields<K extends string>(body: unknown, names: readonly K[]): Record<K, string> {
  const fields = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const values = {} as Record<K, string>;
  for (const name of names) {
    const value = fields[name];
    values[name] = typeof value === "string" ? value.trim() : "";
  }
  return values;
}

/** Only an enterprise key takes its own limits; the fields are ignored for other plans. */
function limitsOf(values: EditKeyForm): CreateKeyInput["limits"] {
  return values.plan === "enterprise"
    ? { perMinute: values.limit_minute, perDay: values.limit_day }
    : undefined;
}

/** Where an error no field of the form can take is kept: shown above the fields. */
const FORM_ERROR = "(form)";

/**
 * The core's `details` by the field of `shown` each names, the first message of each. One
 * that names no field the form shows (none at all, `(root)`, a path with no field here)
 * is the form's, shown above the fields, rather than under a field it is not about.
 */
function errorsOf(shown: readonly string[]): (err: ServiceError) => Map<string, string> {
  return (err) => {
    const errors = new Map<string, string>();
    for (const detail of err.details ?? [{ path: "", message: err.message }]) {
      const field = FIELD_OF_PATH[detail.path];
      const place = field !== undefined && shown.includes(field) ? field : FORM_ERROR;
      if (!errors.has(place)) errors.set(place, detail.message);
    }
    return errors;
  };
}

/** The refused form's alert: the form's own error when it has one, and a pointer to the fields' errors. */
function refusalAlert(errors: Map<string, string>, notDone: string): SafeHtml | "" {
  if (errors.size === 0) return "";
  const general = errors.get(FORM_ERROR);
  const onFields = errors.size > (general === undefined ? 0 : 1);
  const said = [general, onFields ? "check the highlighted fields." : undefined].filter(Boolean).join("; ");
  return html`<p class="alert alert-error span-2" role="alert">${notDone}: ${said}</p>`;
}

/**
 * Turns the posted form into the core's `CreateKeyInput`; the core validates it (the same
 * rules as the CLI). Blank optional fields mean "not given".
 */
export function readCreateKeyForm(body: unknown): ReadKeyForm<CreateKeyForm, CreateKeyInput> {
  const values: CreateKeyForm = readFields(body, CREATE_FIELDS);
  const input = {
    name: values.name,
    scope: values.scope,
    plan: values.plan || undefined,
    limits: limitsOf(values),
    environment: values.environment || undefined,
    owner: values.owner || undefined,
    // The date as picked: the core reads a date as the CLI's --expires-at does (through that day, UTC).
    expiresAt: values.expires_on || undefined,
  } satisfies Record<keyof CreateKeyInput, unknown>;
  return { values, input: input as CreateKeyInput, errorsOf: errorsOf(CREATE_FIELDS) };
}

/**
 * Turns the posted edit form into the core's `EditKeyInput`, validated by the core as
 * `skillport keys edit` is. The form always sends the name and plan it was filled with.
 */
export function readEditKeyForm(body: unknown): ReadKeyForm<EditKeyForm, EditKeyInput> {
  const values: EditKeyForm = readFields(body, EDIT_FIELDS);
  const input = {
    name: values.name,
    plan: values.plan || undefined,
    limits: limitsOf(values),
  } satisfies Record<keyof EditKeyInput, unknown>;
  return { values, input: input as EditKeyInput, errorsOf: errorsOf(EDIT_FIELDS) };
}

/** The edit form's values for a key as it is now. */
export function editKeyValues(key: KeyView): EditKeyForm {
  return {
    name: key.name,
    plan: key.plan,
    limit_minute: String(key.limits.perMinute),
    limit_day: String(key.limits.perDay),
  };
}

/**
 * The attributes in the order the forms show them (the edit form those it may change):
 * the plan and the environment share a row of the grid, the limits take the next.
 */
const FORM_ORDER = [
  "name",
  "scope",
  "plan",
  "environment",
  "limits",
  "owner",
  "expiresAt",
] as const satisfies readonly KeyAttribute[];
// An attribute the forms do not place is a compile error here, not a field left out.
const everyAttributePlaced: Exclude<KeyAttribute, (typeof FORM_ORDER)[number]> extends never ? true : never =
  true;
void everyAttributePlaced;

/** The forms' fields in the order a page shows them, for the first refused one. */
const FIELD_ORDER: readonly (keyof CreateKeyForm)[] = formFieldsOf(FORM_ORDER);

/**
 * A field's error message and the attributes tying it to its input, when it has one. A
 * field with a hint passes the hint's id: one `aria-describedby` names both (of an
 * attribute written twice, browsers keep the first, and the error went unread). The
 * first refused field takes `autofocus`: a refused form comes back with the cursor where
 * the fix goes and its error read out, rather than at "Skip to content",
 * and without script too.
 */
function fieldErrors(errors: Map<string, string>) {
  const first = FIELD_ORDER.find((field) => errors.has(field));
  return {
    error: (field: string) =>
      errors.has(field) ? html`<p class="field-error" id="${field}-error">${errors.get(field)}</p>` : "",
    invalid: (field: string, hintId?: string) => {
      const described = [hintId, errors.has(field) ? `${field}-error` : undefined].filter(Boolean).join(" ");
      return html`${errors.has(field) ? html` aria-invalid="true"` : ""}${described && html` aria-describedby="${described}"`}${field === first && html` autofocus`}`;
    },
  };
}

function option(value: string, selected: string, label = value): SafeHtml {
  return html`<option value="${value}"${value === selected ? html` selected` : ""}>${label}</option>`;
}

/** The key's name, in both forms. */
function nameField(values: Partial<EditKeyForm>, errors: Map<string, string>): SafeHtml {
  const { error, invalid } = fieldErrors(errors);
  return html`<div class="field span-2">
    <label for="name">Name</label>
    <input id="name" name="name" value="${values.name ?? ""}" required maxlength="100" placeholder="e.g. support agent (production)"${invalid("name")}>
    ${error("name")}
  </div>`;
}

/**
 * The plan and the enterprise limits, in both forms: the plan's select (a grid cell) and the
 * limits' fieldset (a full row), shown by the page's script for the enterprise plan only.
 */
function planFields(
  values: Partial<EditKeyForm>,
  errors: Map<string, string>,
): { plan: SafeHtml; limits: SafeHtml } {
  const { error, invalid } = fieldErrors(errors);
  const plan = values.plan || "free";
  const planLabel = (p: string) =>
    p === "enterprise"
      ? "Enterprise: custom limits"
      : `${p[0]?.toUpperCase()}${p.slice(1)}: ${integer(PLAN_LIMITS[p as "free" | "pro"].perMinute)}/min, ${integer(PLAN_LIMITS[p as "free" | "pro"].perDay)}/day`;
  return {
    plan: html`<div class="field">
    <label for="plan">Plan</label>
    <select id="plan" name="plan" data-plan-select${invalid("plan")}>${PLANS.map((p) => option(p, plan, planLabel(p)))}</select>
    ${error("plan")}
  </div>`,
    limits: html`<fieldset class="field span-2 enterprise-limits" data-enterprise-limits>
    <legend>Enterprise limits <small class="muted">(enterprise plan only)</small></legend>
    <div class="form-grid inner">
      <div class="field"><label for="limit_minute">Requests per minute</label>
      <input id="limit_minute" name="limit_minute" inputmode="numeric" pattern="[0-9]*" value="${values.limit_minute ?? ""}"${invalid("limit_minute")}>${error("limit_minute")}</div>
      <div class="field"><label for="limit_day">Requests per day</label>
      <input id="limit_day" name="limit_day" inputmode="numeric" pattern="[0-9]*" value="${values.limit_day ?? ""}"${invalid("limit_day")}>${error("limit_day")}</div>
    </div>
  </fieldset>`,
  };
}

/** Each attribute's fields, as both forms show them: every field labelled, errors tied to their fields for screen readers. */
function attributeFields(
  values: Partial<CreateKeyForm>,
  errors: Map<string, string>,
): Record<KeyAttribute, SafeHtml> {
  const { error, invalid } = fieldErrors(errors);
  const scope = values.scope || "read-only";
  // The radios share one error: the chosen one takes the focus (and the error) when it is first.
  const scopeAttributes = invalid("scope");
  const environment = values.environment || "production";
  const { plan, limits } = planFields(values, errors);
  return {
    name: nameField(values, errors),
    scope: html`<fieldset class="field span-2">
    <legend>Scope</legend>
    <div class="choice-row">
    ${SCOPES.map(
      (
        s,
      ) => html`<label class="choice"><input type="radio" name="scope" value="${s}"${s === scope ? html` checked${scopeAttributes}` : ""}>
      <span><strong>${s}</strong><small>${s === "read-only" ? "Discover skills only" : "Discover and execute skills"}</small></span></label>`,
    )}
    </div>
    ${error("scope")}
  </fieldset>`,
    plan,
    environment: html`<div class="field">
    <label for="environment">Environment</label>
    <select id="environment" name="environment"${invalid("environment")}>${ENVIRONMENTS.map((e) => option(e, environment))}</select>
    ${error("environment")}
  </div>`,
    limits,
    owner: html`<div class="field">
    <label for="owner">Owner</label>
    <input id="owner" name="owner" value="${values.owner ?? ""}" placeholder="default" maxlength="64"${invalid("owner", "owner-hint")}>
    <p class="hint" id="owner-hint">A tenant label: keys of one owner share execution records.</p>
    ${error("owner")}
  </div>`,
    expiresAt: html`<div class="field">
    <label for="expires_on">Expires on <small class="muted">(optional)</small></label>
    <input id="expires_on" name="expires_on" type="date" value="${values.expires_on ?? ""}"${invalid("expires_on", "expires-hint")}>
    <p class="hint" id="expires-hint">The key works through that day and stops at its end (23:59:59 UTC).</p>
    ${error("expires_on")}
  </div>`,
  };
}

/** The fields of `attributes`, in the forms' order. */
function fieldsInOrder(
  attributes: readonly KeyAttribute[],
  values: Partial<CreateKeyForm>,
  errors: Map<string, string>,
): SafeHtml[] {
  const fields = attributeFields(values, errors);
  return FORM_ORDER.filter((attribute) => attributes.includes(attribute)).map(
    (attribute) => fields[attribute],
  );
}

/** The create form: a field for every attribute a key is given. */
export function keyForm(
  ctx: PageContext,
  values: Partial<CreateKeyForm>,
  errors: Map<string, string>,
): SafeHtml {
  return html`<form method="post" action="/dashboard/keys" class="panel form-grid" novalidate>
  ${csrfField(ctx)}
  ${refusalAlert(errors, "The key was not created")}
  ${fieldsInOrder(KEY_ATTRIBUTES, values, errors)}
  <div class="inline-actions span-2">
    <button type="submit" class="button button-primary">Create key</button>
    <a class="button button-quiet" href="/dashboard/keys">Cancel</a>
  </div>
</form>`;
}

/**
 * The edit form: the name, plan and limits a key has now, the same fields as the create
 * form's. Scope, environment, owner and expiry stay as they are (roll or create a key for those).
 */
export function editKeyForm(
  ctx: PageContext,
  key: KeyView,
  values: Partial<EditKeyForm>,
  errors: Map<string, string>,
): SafeHtml {
  return html`<form method="post" action="/dashboard/keys/${key.id}/edit" class="panel form-grid" novalidate>
  ${csrfField(ctx)}
  ${refusalAlert(errors, "The key was not changed")}
  ${fieldsInOrder(EDITABLE_KEY_FIELDS, values, errors)}
  <div class="inline-actions span-2">
    <button type="submit" class="button button-primary">Save changes</button>
    <a class="button button-quiet" href="/dashboard/keys/${key.id}">Cancel</a>
  </div>
</form>`;
}
