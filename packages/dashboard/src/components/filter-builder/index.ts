/**
 * The filter builder (decisions.md §8), for segments, FILTERED campaign audiences and CONDITION steps:
 *   <FilterBuilder value={expr} onChange={(expr, valid) => …} />
 *   <LiveCount filters={valid ? expr : null} />
 * and the API's 400 at the inputs: serverErrors={expressionErrorsFrom(err.details, "filters").errors}.
 */
export { FilterBuilder, type FilterBuilderProps } from "./FilterBuilder";
export { LiveCount } from "./LiveCount";
export { checkState, expressionErrorsFrom } from "./validate";
export { blankExpression, expressionToState, stateToExpression } from "./form-state";
