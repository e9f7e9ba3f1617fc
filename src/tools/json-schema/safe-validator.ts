/**
 * The validator every tool schema gets: `@cfworker/json-schema`'s, run only
 * after the value's cost is known to be bounded (`validation-cost.ts`) and
 * with its regular expressions and formats on the linear-time engine
 * (`string-checks.ts`). A value that would cost more than one call may
 * spend is refused with `ValidationBudgetError`, never validated slowly.
 */
import { validate, type Schema, type SchemaDraft, type ValidationResult } from "@cfworker/json-schema";
import { PatternBudget } from "../../security/safe-pattern/safe-pattern";
import { type StringCheckPlan, ValidationBudgetError, withStringChecks } from "./string-checks";
import { validationCostWithin } from "./validation-cost";

/** Subschema applications (and comparisons) one validation may cost; see the bench's `patterns` module for the time it takes. */
export const maxValidationUnits = 200_000;
/** Pattern and format work one validation may spend, in the pattern engine's units. */
export const maxStringCheckUnits = 2_000_000;

export class SafeValidator {
  readonly #schema: Schema;
  readonly #draft: SchemaDraft;
  readonly #lookup: Record<string, Schema | boolean>;
  readonly plan: StringCheckPlan;

  constructor(schema: Schema, draft: SchemaDraft, lookup: Record<string, Schema | boolean>, plan: StringCheckPlan) {
    this.#schema = schema;
    this.#draft = draft;
    this.#lookup = lookup;
    this.plan = plan;
  }

  /** Every error (no short circuit), or `ValidationBudgetError` when the value costs too much to check. */
  validate(instance: unknown): ValidationResult {
    return withStringChecks(this.plan, instance, new PatternBudget(maxStringCheckUnits), () => {
      if (!validationCostWithin(this.#schema, this.#lookup, instance, maxValidationUnits)) {
        throw new ValidationBudgetError(
          `Checking this value against the schema would apply more than ${maxValidationUnits} subschemas (through $ref, anyOf, oneOf, items, uniqueItems…): it is refused unchecked`,
        );
      }
      return validate(instance, this.#schema, this.#draft, this.#lookup, false);
    });
  }
}

export { ValidationBudgetError };
