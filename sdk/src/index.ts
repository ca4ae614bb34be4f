export { PlaybooksClient, type PlaybooksClientOptions } from './client.js';
export type { AnalystReportQuery, CsvAnswer, ReportParams } from './facade/analyst.js';
export { reasonText } from './reasons.js';
export { PlaybooksError, type PlaybooksErrorInit, type ProblemField } from './errors.js';
export type { Paged, Pagination } from './paging.js';
export type { QueryValue, RawRequest, RouteAnswer, RouteRequest } from './request.js';
export { type EtagStore, MemoryEtagStore, type MemoryEtagStoreOptions, type StoredAnswer } from './store.js';
export type { CallOptions, CallPolicy, ResponseEvent, RetryOptions } from './transport.js';
/** Every request and response type of the API, generated from its OpenAPI document. */
export type * from './generated/types.gen.js';
/** The values of every named set of strings (nodeTypes, linkTypes, roles, …), generated with the types. */
export * from './generated/enums.gen.js';
