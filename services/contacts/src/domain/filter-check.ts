import { AppError, type ConditionConfig, type ErrorDetail, type FilterExpression } from "@mailroom/contracts";
import { FilterError, type SegmentMap, type TopicDefaults, checkSegmentReferences, compileFilter } from "@mailroom/filters";

/**
 * The checks the schema cannot make because they need the project's segments: every `segment.<id>`
 * must be one of them (another project's id is as unknown as a made-up one) and no chain of
 * references may come back to where it started. Answers the problems with paths under `root`.
 */
export function segmentReferenceProblems(
  expr: FilterExpression,
  segments: SegmentMap,
  root: string,
  segmentId?: string,
  topics?: TopicDefaults,
): ErrorDetail[] {
  try {
    checkSegmentReferences(expr, { segments, segmentId });
    // `topic.<id>` must be a topic of the project: compiling resolves every field against them
    if (topics) compileFilter(expr, { segments, segmentId, topics, now: new Date() });
    return [];
  } catch (err) {
    if (!(err instanceof FilterError)) throw err;
    return [{ path: err.path ? `${root}.${err.path}` : root, message: err.message }];
  }
}

/** A CONDITION step's short form `{field, operator, value}` reports at `root.field`. */
export function conditionProblems(condition: ConditionConfig, segments: SegmentMap, root: string): ErrorDetail[] {
  if ("groups" in condition) return segmentReferenceProblems(condition, segments, root);
  const { logic: _logic, ...filter } = condition;
  const problems = segmentReferenceProblems({ logic: "AND", groups: [{ filters: [filter] }] }, segments, root);
  return problems.map((p) => ({ ...p, path: `${root}.field` }));
}

/** The problems as the 400 of a request body. */
export function assertNoProblems(problems: ErrorDetail[]): void {
  if (problems.length > 0) throw AppError.validation(problems[0]!.message, problems);
}
