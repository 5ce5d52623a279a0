// The fields of a Lambda Function URL event (payload format 2.0) that our handlers read.

export interface FunctionUrlEvent {
  rawPath: string;
  rawQueryString?: string;
  headers: Record<string, string | undefined>;
  body?: string;
  isBase64Encoded?: boolean;
  requestContext: { http: { method: string } };
}

export interface FunctionUrlResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export function functionUrlResponse(result: { status: number; body: unknown }): FunctionUrlResult {
  return { statusCode: result.status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result.body) };
}
