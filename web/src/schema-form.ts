/**
 * A form generated from a JSON Schema: the generic way to answer a `space`
 * tool. Objects become fieldsets, `enum`s selects (or checkboxes for arrays
 * of enums), numbers number inputs with their bounds, booleans checkboxes,
 * long or multi-line strings text areas, anything else a JSON text area.
 * `read()` checks what the schema says (required, bounds, lengths, pattern)
 * and returns the value or the problems, each with its field path.
 */
import { compileSafePattern, PatternBudget } from "../../src/security/safe-pattern/safe-pattern";
import { h } from "./dom";

export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
};

export type FormRead = { ok: true; value: unknown } | { ok: false; problems: string[] };
type Field = { element: HTMLElement; read(problems: string[]): unknown };

const typeOf = (schema: JsonSchema): string | undefined => (Array.isArray(schema.type) ? schema.type.find((type) => type !== "null") : schema.type);

let fieldCounter = 0;

function label(name: string, schema: JsonSchema, required: boolean, control: HTMLElement, id: string): HTMLElement {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, schema.title ?? humanize(name), required ? h("span", { class: "required", title: "required" }, " *") : null),
    control,
    schema.description ? h("small", { class: "hint" }, schema.description) : null,
  );
}

function humanize(name: string): string {
  const words = name
    .replace(/[_-]+/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function field(name: string, path: string, schema: JsonSchema, required: boolean): Field {
  const id = `field-${++fieldCounter}`;
  const type = typeOf(schema);
  const where = path || "answer";

  if (type === "object" && schema.properties) {
    const children = Object.entries(schema.properties).map(
      ([key, child]) => [key, field(key, path ? `${path}.${key}` : key, child, schema.required?.includes(key) ?? false)] as const,
    );
    const element = h(
      "fieldset",
      { class: "object" },
      path ? h("legend", {}, schema.title ?? humanize(name)) : null,
      !path && schema.description ? h("p", { class: "hint" }, schema.description) : null,
      children.map(([, child]) => child.element),
    );
    return {
      element,
      read(problems) {
        const value: Record<string, unknown> = {};
        for (const [key, child] of children) {
          const childValue = child.read(problems);
          if (childValue !== undefined) value[key] = childValue;
        }
        return value;
      },
    };
  }

  if (schema.enum && type !== "array") {
    const select = h(
      "select",
      { id, name: where },
      required ? null : h("option", { value: "" }, "—"),
      schema.enum.map((option, index) => h("option", { value: String(index), selected: schema.default === option }, String(option))),
    );
    if (required && schema.default === undefined) select.prepend(h("option", { value: "", selected: true, disabled: true }, "Choose…"));
    return {
      element: label(name, schema, required, select, id),
      read(problems) {
        if (select.value === "") {
          if (required) problems.push(`${where}: choose one`);
          return undefined;
        }
        return schema.enum?.[Number(select.value)];
      },
    };
  }

  if (type === "array" && schema.items?.enum) {
    const boxes = schema.items.enum.map((option, index) => {
      const box = h("input", { type: "checkbox", name: `${where}[]`, value: String(index), checked: Array.isArray(schema.default) && schema.default.includes(option) });
      return { option, box, element: h("label", { class: "choice" }, box, ` ${String(option)}`) };
    });
    return {
      element: label(
        name,
        schema,
        required,
        h(
          "div",
          { class: "choices", id },
          boxes.map((entry) => entry.element),
        ),
        id,
      ),
      read(problems) {
        const chosen = boxes.filter((entry) => entry.box.checked).map((entry) => entry.option);
        if (required && chosen.length === 0) problems.push(`${where}: choose at least one`);
        return chosen;
      },
    };
  }

  if (type === "boolean") {
    const box = h("input", { type: "checkbox", id, name: where, checked: schema.default === true });
    return {
      element: h(
        "div",
        { class: "field checkbox" },
        h("label", { for: id }, box, ` ${schema.title ?? humanize(name)}`),
        schema.description ? h("small", { class: "hint" }, schema.description) : null,
      ),
      read: () => box.checked,
    };
  }

  if (type === "number" || type === "integer") {
    const input = h("input", {
      type: "number",
      id,
      name: where,
      min: schema.minimum,
      max: schema.maximum,
      step: type === "integer" ? 1 : "any",
      value: typeof schema.default === "number" ? schema.default : undefined,
    });
    return {
      element: label(name, schema, required, input, id),
      read(problems) {
        if (input.value.trim() === "") {
          if (required) problems.push(`${where}: required`);
          return undefined;
        }
        const value = Number(input.value);
        if (!Number.isFinite(value)) problems.push(`${where}: not a number`);
        else if (type === "integer" && !Number.isInteger(value)) problems.push(`${where}: must be a whole number`);
        else if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${where}: at least ${schema.minimum}`);
        else if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${where}: at most ${schema.maximum}`);
        return value;
      },
    };
  }

  if (type === "string") {
    const long = (schema.maxLength ?? 0) > 200 || schema.format === "textarea" || (!schema.maxLength && /comment|note|message|text|reason|description|details/i.test(name));
    const inputType = schema.format === "email" ? "email" : schema.format === "date" ? "date" : schema.format === "uri" ? "url" : "text";
    const control = long ? h("textarea", { id, name: where, rows: 3, maxlength: schema.maxLength }) : h("input", { type: inputType, id, name: where, maxlength: schema.maxLength });
    if (typeof schema.default === "string") control.value = schema.default;
    return {
      element: label(name, schema, required, control, id),
      read(problems) {
        const value = control.value;
        if (value === "") {
          if (required) problems.push(`${where}: required`);
          return undefined;
        }
        if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${where}: at least ${schema.minLength} characters`);
        if (schema.pattern !== undefined && !matchesPattern(schema.pattern, value)) problems.push(`${where}: must match ${schema.pattern}`);
        return value;
      },
    };
  }

  if (type === "array" && (typeOf(schema.items ?? {}) === "string" || typeOf(schema.items ?? {}) === "number")) {
    const area = h("textarea", { id, name: where, rows: 3, placeholder: "one per line" });
    const numeric = typeOf(schema.items ?? {}) === "number";
    return {
      element: label(name, schema, required, area, id),
      read(problems) {
        const lines = area.value
          .split("\n")
          .map((line) => line.trim())
          .filter(Boolean);
        if (required && lines.length === 0) problems.push(`${where}: required`);
        if (!numeric) return lines;
        const numbers = lines.map(Number);
        if (numbers.some((value) => !Number.isFinite(value))) problems.push(`${where}: one number per line`);
        return numbers;
      },
    };
  }

  // Anything else: JSON typed by hand.
  const area = h("textarea", { id, name: where, rows: 4, class: "json", placeholder: "JSON" });
  if (schema.default !== undefined) area.value = JSON.stringify(schema.default, null, 2);
  return {
    element: label(name, schema, required, area, id),
    read(problems) {
      if (area.value.trim() === "") {
        if (required) problems.push(`${where}: required`);
        return undefined;
      }
      try {
        return JSON.parse(area.value);
      } catch {
        problems.push(`${where}: not valid JSON`);
        return undefined;
      }
    },
  };
}

/** The schema of an answer when the tool declares none: one free-text reply. */
export const defaultAnswerSchema: JsonSchema = {
  type: "object",
  properties: { answer: { type: "string", title: "Your answer", maxLength: 4000 } },
  required: ["answer"],
};

export function schemaForm(schema: JsonSchema): { element: HTMLElement; read(): FormRead } {
  const root = field("", "", schema, true);
  return {
    element: root.element,
    read() {
      const problems: string[] = [];
      const value = root.read(problems);
      return problems.length > 0 ? { ok: false, problems } : { ok: true, value: value ?? null };
    },
  };
}

/**
 * A schema's `pattern` on the gateway's linear-time engine, never the
 * browser's backtracking one (nor the input's `pattern` attribute, which
 * would run it on every keystroke): a tool's schema must not be able to
 * freeze the page. What the engine does not run, or cannot finish, is left
 * to the gateway, which checks every answer against the schema again.
 */
function matchesPattern(pattern: string, value: string): boolean {
  const compiled = compileSafePattern(pattern, { unicode: true });
  if (!compiled.ok) return true;
  return compiled.pattern.matcher().search(value, new PatternBudget(1_000_000)) !== "no-match";
}
