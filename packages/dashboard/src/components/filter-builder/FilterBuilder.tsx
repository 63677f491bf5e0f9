import type { FilterDialect, FilterExpression } from "@mailroom/contracts";
import { useCallback, useMemo, useState } from "react";
import { useDataKeys, useEventNames } from "../../api/contacts";
import { useSegments } from "../../api/segments";
import { useTopics } from "../../api/topics";
import { Builder, type BuilderContext } from "./context";
import { ExpressionEditor } from "./ExpressionEditor";
import { type ExpressionState, type FieldErrors, expressionToState } from "./form-state";
import { checkState, messagesAt } from "./validate";

export interface FilterBuilderProps {
  value: FilterExpression;
  /** Every edit: the expression the form now stands for, and whether the schema accepts it. */
  onChange: (value: FilterExpression, valid: boolean) => void;
  readOnly?: boolean;
  /** `audience` (segments, campaign audiences; the default) or `workflow` (CONDITION steps). */
  dialect?: FilterDialect;
  /** The API's messages by path inside the expression (`expressionErrorsFrom(err.details)`); always shown. */
  serverErrors?: FieldErrors;
  /** Show every message, not only those of filters already edited (set it after a save was tried). */
  showAllErrors?: boolean;
  /** Not offered as a `segment.<id>` choice: the segment being edited (it cannot contain itself). */
  excludeSegmentId?: string;
}

const same = (a: FilterExpression, b: FilterExpression) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The visual editor of a filter expression (decisions.md §8). It keeps a form state of its own, so
 * text that is not yet a valid value ("1.", an empty key) survives between keystrokes, and reports
 * every edit as an expression; a `value` from outside that differs from what it reported (another
 * segment loaded) starts the form again.
 */
export function FilterBuilder({ value, onChange, readOnly = false, dialect = "audience", serverErrors, showAllErrors = false, excludeSegmentId }: FilterBuilderProps) {
  const [state, setState] = useState(() => expressionToState(value, dialect));
  const [seen, setSeen] = useState(value);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const checked = useMemo(() => checkState(state, dialect), [state, dialect]);
  if (value !== seen) {
    setSeen(value);
    if (!same(value, checked.expression)) setState(expressionToState(value, dialect));
  }

  const dataKeys = useDataKeys().data?.data;
  const eventNames = useEventNames().data?.data;
  const segmentList = useSegments().data;
  const topicList = useTopics().data;
  const touch = useCallback((id: string) => setTouched((t) => (t.has(id) ? t : new Set(t).add(id))), []);

  const ctx: BuilderContext = {
    dialect,
    readOnly,
    message: (path, rowId) => serverErrors?.[path] ?? (showAllErrors || touched.has(rowId) ? checked.errors[path] : undefined),
    groupMessage: (place) => {
      const local = showAllErrors ? messagesAt(checked.errors, place) : undefined;
      const server = serverErrors ? messagesAt(serverErrors, place) : undefined;
      return [server, local].filter(Boolean).join("; ") || undefined;
    },
    touch,
    dataKeys: dataKeys ?? [],
    eventNames: eventNames ?? [],
    segments: (segmentList ?? []).filter((s) => s.id !== excludeSegmentId).map((s) => ({ value: s.id, label: s.name })),
    topics: (topicList ?? []).map((t) => ({ value: t.id, label: t.name })),
  };

  const change = (next: ExpressionState) => {
    setState(next);
    const result = checkState(next, dialect);
    setSeen(result.expression);
    onChange(result.expression, result.valid);
  };

  return (
    <Builder.Provider value={ctx}>
      <ExpressionEditor value={state} onChange={change} path="" level={1} owner="" />
    </Builder.Provider>
  );
}
