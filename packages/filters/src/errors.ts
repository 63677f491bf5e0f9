import { AppError } from "@mailroom/contracts";

/**
 * A filter that cannot be evaluated: an unknown field, an operator its field does not take, or a
 * segment reference that is unknown or cyclic. It is a VALIDATION_ERROR whose one detail names the
 * place in the expression (`groups.0.filters.1.field`), so the segments and campaigns services can
 * return it as is when a body refers to something that does not exist.
 */
export class FilterError extends AppError {
  readonly path: string;

  constructor(path: string, message: string) {
    super("VALIDATION_ERROR", message, { details: [{ path, message }] });
    this.name = "FilterError";
    this.path = path;
  }
}
