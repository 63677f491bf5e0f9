export { compileFilter, type CompiledFilter } from "./compile.js";
export { evaluateFilter } from "./evaluate.js";
export { affectedBy, nextBoundary, type AffectedBy } from "./analysis.js";
export { checkSegmentReferences } from "./segments.js";
export { FilterError } from "./errors.js";
export { ISO_DATE_TIME_PATTERN, parseIsoDateTime } from "./time.js";
export type { CompileContext, ContactFacts, EvaluateContext, SegmentDefinition, SegmentMap, SegmentScope, TopicDefaults } from "./facts.js";
