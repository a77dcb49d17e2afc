/**
 * The classifier families' names, apart from the families themselves: the command line lists and
 * checks them at every start, without loading the models.
 */
import { OccamError } from "../../errors.js";

/** The families by name, in the order occam lists them. */
export const CLASSIFIER_FAMILIES = ["logistic", "rbf", "pknn", "mixture", "mlp"] as const;

/** A family's name. */
export type ClassifierFamilyName = (typeof CLASSIFIER_FAMILIES)[number];

/** Throws `invalid-argument` for a name that is not a family, listing the families. */
export function checkFamilyName(name: string): ClassifierFamilyName {
  if (!(CLASSIFIER_FAMILIES as readonly string[]).includes(name)) {
    throw new OccamError(
      "invalid-argument",
      `unknown classifier family "${name}"; choose from ${CLASSIFIER_FAMILIES.join(", ")}.`,
    );
  }
  return name as ClassifierFamilyName;
}

/** The `method` of a family's chain-rule evidence as a comparison reports it, whatever the family computes it by. */
export const CHAIN_RULE = "chain-rule";

/**
 * An evidence estimator's name as reports show it: "chain rule" for {@link CHAIN_RULE}, otherwise the
 * method itself ("smc", "bridge", "pknn-quadrature").
 */
export function estimatorName(method: string): string {
  return method === CHAIN_RULE ? "chain rule" : method;
}
