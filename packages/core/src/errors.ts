/**
 * Typed errors the domain throws. Each carries the HTTP status and the `detail` value of the
 * response body, so the one error handler of the HTTP stack can answer without knowing the domain.
 */

/** One entry of a 422 body, in the shape `{type, loc, msg, input}`. */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

export type ErrorDetail =
  | string
  | { message: string; errors: string[] }
  | ValidationIssue[]
  | Record<string, unknown>;

export class HttpError extends Error {
  readonly status: number;
  readonly detail: ErrorDetail;

  constructor(status: number, detail: ErrorDetail, message?: string) {
    super(message ?? (typeof detail === 'string' ? detail : JSON.stringify(detail)));
    this.name = new.target.name;
    this.status = status;
    this.detail = detail;
  }
}

/** 400 with a plain message: invalid identifiers and other rule violations. */
export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

/** 400 with `{message, errors}`: business-rule validation that reports several problems at once. */
export class BusinessRuleError extends HttpError {
  constructor(message: string, errors: string[]) {
    super(400, { message, errors });
  }
}

/** 403: the request names something the caller may not reach (a tenant of another organization). */
export class ForbiddenError extends HttpError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, message);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string) {
    super(415, message);
  }
}

/** 422 in the request-validation shape. */
export class ValidationError extends HttpError {
  constructor(issues: ValidationIssue[]) {
    super(422, issues, issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}

/** 502: a downstream service (search backend, model server) failed the request. */
export class BadGatewayError extends HttpError {
  constructor(message: string) {
    super(502, message);
  }
}

/** 503 with a structured body naming the failure, e.g. `tenant_delete_incomplete`. */
export class ServiceUnavailableError extends HttpError {
  constructor(error: string, message: string, extra: Record<string, unknown> = {}) {
    super(503, { error, message, ...extra }, message);
  }
}
